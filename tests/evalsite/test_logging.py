"""Console log format: exact prefixes, extra fields kept, periodic lines thinned."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from evalsite.logging import JsonFormatter, RepeatFilter, TextFormatter


def _record(msg: str, *args: Any, **extra: Any) -> logging.LogRecord:
    record = logging.LogRecord("stream.x", logging.INFO, __file__, 1, msg, args, None)
    record.__dict__.update(extra)
    return record


def test_text_line_keeps_the_exact_prefix_and_the_agent() -> None:
    line = TextFormatter().format(
        _record(
            "[KeepAlive] skip reason=cooldown remaining_ms=%s",
            110000,
            agent="alpha",
            periodic=True,
        )
    )
    _, _, rest = line.partition(" INFO stream.x ")
    assert rest == ("[KeepAlive] skip reason=cooldown remaining_ms=110000 agent=alpha")


def test_agency_and_eval_summary_lines_carry_agent_and_run_id() -> None:
    formatter = TextFormatter()
    agency = formatter.format(
        _record(
            "[Agency %sm] llm=%s goals=%s drives=%s sigDedup=%s contentDedup=%s "
            "intents=%s",
            3,
            1,
            0,
            0,
            2,
            0,
            0,
            agent="alpha",
            uptime_min=3,
        )
    )
    assert agency.endswith(
        " [Agency 3m] llm=1 goals=0 drives=0 sigDedup=2 contentDedup=0 intents=0 "
        "agent=alpha uptime_min=3"
    )
    summary = formatter.format(
        _record("[Eval] summary action_rate=%s", "0.2", run_id="run-7 b")
    )
    assert summary.endswith(' [Eval] summary action_rate=0.2 run_id="run-7 b"')


def test_json_line_has_the_fields_but_not_the_marker() -> None:
    import json

    doc = json.loads(
        JsonFormatter().format(_record("[X] y", agent="alpha", periodic=True))
    )
    assert doc["message"] == "[X] y" and doc["agent"] == "alpha"
    assert "periodic" not in doc


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_periodic_lines_are_shown_once_per_window_with_a_count() -> None:
    clock = Clock()
    repeats = RepeatFilter(window_s=60, clock=clock)
    shown = []
    for second in range(0, 130, 10):
        clock.now = float(second)
        record = _record("[KeepAlive] skip", agent="alpha", periodic=True)
        if repeats.filter(record):
            shown.append((second, getattr(record, "repeated", 0)))
    assert shown == [(0, 0), (60, 5), (120, 5)]


def test_periodic_lines_of_different_agents_and_plain_lines_all_pass() -> None:
    repeats = RepeatFilter(window_s=60, clock=Clock())
    assert repeats.filter(_record("[KeepAlive] skip", agent="a", periodic=True))
    assert repeats.filter(_record("[KeepAlive] skip", agent="b", periodic=True))
    assert not repeats.filter(_record("[KeepAlive] skip", agent="a", periodic=True))
    assert all(repeats.filter(_record("[Eval] summary", run_id="r")) for _ in range(3))
    warning = _record("[KeepAlive] skip", agent="a", periodic=True)
    warning.levelno = logging.WARNING
    assert repeats.filter(warning)


def test_a_field_the_message_already_states_is_not_repeated() -> None:
    line = TextFormatter().format(
        _record("[Eval] run_finished run_id=%s status=completed", "r1", run_id="r1")
    )
    assert line.endswith(" [Eval] run_finished run_id=r1 status=completed")


def test_text_line_is_the_standard_formatter_line_with_the_fields() -> None:
    standard = logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s")
    formatter = TextFormatter()
    for created in (1_700_000_000.25, 1_700_000_000.999, 1_700_000_001.0, 5.5):
        record = _record("[Eval] no_goal scenario=%s", "s 1", run_id="r", n=3)
        record.created = created
        record.msecs = (created - int(created)) * 1000
        expected = standard.format(record) + " run_id=r n=3"
        assert formatter.format(record) == expected


def test_a_traceback_stays_below_the_line_and_its_fields() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord(
            "evals.x", logging.ERROR, __file__, 1, "[Eval] crashed", (), sys.exc_info()
        )
    record.run_id = "r"

    head, _, tail = TextFormatter().format(record).partition("\n")

    assert head.endswith(" ERROR evals.x [Eval] crashed run_id=r")
    assert tail.startswith("Traceback") and tail.endswith("ValueError: boom")


def test_a_flag_the_message_states_is_not_repeated_in_another_spelling() -> None:
    line = TextFormatter().format(
        _record(
            "[Eval] ci_gate passed=%s compared=%d",
            "false",
            2,
            passed=False,
            compared=2,
            cached=True,
        )
    )
    _, _, rest = line.partition(" INFO stream.x ")
    assert rest == "[Eval] ci_gate passed=false compared=2 cached=true"


def test_celery_task_chatter_is_left_out_unless_debugging() -> None:
    from celery.app import trace

    from evalsite.logging import TaskChatterFilter, build_logging

    def record(name: str, msg: str, *args: Any) -> logging.LogRecord:
        return logging.LogRecord(name, logging.INFO, __file__, 1, msg, args, None)

    chatter = TaskChatterFilter()
    context = {"name": "stream.tick", "id": "1", "runtime": 0.1, "return_value": None}
    assert not chatter.filter(record("celery.worker.strategy", trace.LOG_RECEIVED))
    assert not chatter.filter(record("celery.app.trace", trace.LOG_SUCCESS))
    assert not chatter.filter(
        record("celery.beat", "Scheduler: Sending due task %s (%s)", "tick", "t")
    )
    # What a person needs to see still shows.
    assert chatter.filter(record("celery.app.trace", trace.LOG_RETRY, context))
    assert chatter.filter(record("celery.app.trace", trace.LOG_FAILURE, context))
    assert chatter.filter(record("celery.worker", "celery@host ready."))
    assert chatter.filter(record("stream.x", trace.LOG_RECEIVED))

    def console_filters(level: str) -> list[str]:
        handlers = build_logging(level=level, fmt="text")["handlers"]
        return list(handlers["console"]["filters"])

    assert console_filters("INFO") == ["repeats", "task_chatter"]
    assert console_filters("DEBUG") == ["repeats"]


@pytest.fixture
def restore_logging(settings: Any) -> Iterator[None]:
    yield
    from django.utils.log import configure_logging

    configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)


def test_configure_leaves_records_their_caller_thread_and_process(
    settings: Any, restore_logging: None
) -> None:
    from evalsite.logging import build_logging, configure

    configure(build_logging(level="INFO", fmt="json"))
    record = logging.getLogger("evalsite.tests").makeRecord(
        "evalsite.tests", logging.INFO, "(unknown file)", 0, "a line", (), None
    )
    assert record.thread is not None
    assert record.process is not None
    assert record.processName is not None
    assert json.loads(JsonFormatter().format(record))["message"] == "a line"
