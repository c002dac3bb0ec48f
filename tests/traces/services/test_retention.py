"""Span retention: old spans go in batches by key range; 0 keeps them all."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings

from evalsite.dispatch import task_get
from traces.models import Span
from traces.services.retention import PruneResult, spans_prune

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def spans(*ages_days: float) -> list[int]:
    """One span per age (days before NOW), stored in that order."""
    Span.objects.bulk_create(
        Span(
            trace_id="ab" * 16,
            span_id=f"{index:016x}",
            name="chat",
            source="otlp",
            started_at=NOW - timedelta(days=age),
            ended_at=NOW - timedelta(days=age),
        )
        for index, age in enumerate(ages_days)
    )
    return list(Span.objects.order_by("pk").values_list("pk", flat=True))


def left() -> list[str]:
    return list(Span.objects.order_by("pk").values_list("span_id", flat=True))


def test_spans_older_than_the_retention_go_and_newer_ones_stay() -> None:
    spans(40, 31, 29, 1)
    result = spans_prune(now=NOW, days=30, batch=100)
    assert result == PruneResult(deleted=2, batches=1, more=False)
    assert left() == [f"{2:016x}", f"{3:016x}"]


def test_deletes_go_in_batches_by_key_range(caplog) -> None:
    # Out of time order: a late span (age 50) after a recent one.
    spans(45, 44, 1, 43, 42, 50)
    with caplog.at_level("INFO", logger="traces.services.retention"):
        result = spans_prune(now=NOW, days=30, batch=2)
    assert result == PruneResult(deleted=5, batches=3, more=False)
    assert left() == [f"{2:016x}"]
    assert [r.getMessage() for r in caplog.records] == [
        "[Traces] spans_pruned deleted=5 batches=3 older_than_days=30 more=false"
    ]


def test_a_run_stops_at_its_batch_cap_and_the_next_goes_on() -> None:
    spans(40, 40, 40, 40, 40)
    first = spans_prune(now=NOW, days=30, batch=2, max_batches=2)
    assert first == PruneResult(deleted=4, batches=2, more=True)
    assert spans_prune(now=NOW, days=30, batch=2, max_batches=2) == PruneResult(
        deleted=1, batches=1, more=False
    )
    assert left() == []


def test_zero_days_keeps_every_span() -> None:
    spans(4000)
    assert spans_prune(now=NOW, days=0) == PruneResult(0, 0, False)
    assert len(left()) == 1


def test_the_settings_give_the_default_days_and_batch(settings) -> None:
    settings.TRACE_RETENTION_DAYS = 10
    settings.TRACE_RETENTION_BATCH = 1
    spans(11, 12, 9)
    assert spans_prune(now=NOW) == PruneResult(deleted=2, batches=2, more=False)


def test_nothing_to_delete_logs_nothing(caplog) -> None:
    spans(1)
    with caplog.at_level("INFO", logger="traces.services.retention"):
        assert spans_prune(now=NOW, days=30) == PruneResult(0, 0, False)
    assert caplog.records == []


def test_the_prune_task_is_on_the_beat_schedule_and_calls_the_service() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["traces-prune-spans"]
    assert (entry["task"], entry["schedule"]) == (
        "traces.prune_spans",
        timedelta(hours=1),
    )
    spans(settings.TRACE_RETENTION_DAYS + 1)
    assert task_get("traces.prune_spans").apply().get() == 1
    assert left() == []
