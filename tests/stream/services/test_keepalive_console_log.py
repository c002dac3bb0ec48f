"""The console shows a periodic keep-alive line once per window, with its agent."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from evalsite.logging import RepeatFilter, TextFormatter


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def console() -> Iterator[tuple[io.StringIO, Clock]]:
    """The production handler shape (text formatter + repeat filter) on root."""
    out, clock = io.StringIO(), Clock()
    handler = logging.StreamHandler(out)
    handler.setFormatter(TextFormatter())
    handler.addFilter(RepeatFilter(window_s=60, clock=clock))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield out, clock
    root.removeHandler(handler)
    root.setLevel(old_level)


@pytest.mark.django_db
def test_keepalive_cooldown_skips_every_10_s_show_once_per_minute(
    agent: Any, calm_facts: Any, console: tuple[io.StringIO, Clock]
) -> None:
    from stream.services.keepalive import keepalive_tick
    from stream.services.thoughts import percept_record

    out, clock = console
    t0 = datetime(2026, 11, 23, 12, 0, 0, tzinfo=timezone.UTC)
    percept_record(agent=agent, document={"facts": calm_facts}, now=t0)
    for second in range(0, 120, 10):
        clock.now = float(second)
        keepalive_tick(agent_id=agent.pk, now=t0 + timedelta(seconds=second))
    skips = [line for line in out.getvalue().splitlines() if "[KeepAlive] skip" in line]
    assert [line.partition(" [KeepAlive] ")[2] for line in skips] == [
        "skip reason=cooldown remaining_ms=110000 agent=alpha",
        "skip reason=cooldown remaining_ms=50000 agent=alpha repeated=5",
    ]
