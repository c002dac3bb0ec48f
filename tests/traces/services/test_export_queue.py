"""The score export queue: bounded, after commit, off by default, swept."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from kombu.exceptions import OperationalError

from traces.models import ScoreExport
from traces.services import export_queue
from traces.services.export_queue import (
    score_export_enqueue,
    score_export_schedule,
    score_exports_resend,
)

pytestmark = pytest.mark.django_db

ON = {"OTLP_EXPORT_ENDPOINT": "http://127.0.0.1:9/v1/logs"}


@pytest.fixture
def sent(monkeypatch: Any) -> list[tuple[str, int]]:
    """The task sends, by name and export pk (no broker, no worker)."""
    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(
        export_queue, "enqueue", lambda name, pk: calls.append((name, pk))
    )
    return calls


@override_settings(**ON)
def test_a_run_is_queued_and_its_send_waits_for_the_commit(
    sent: list[tuple[str, int]],
    django_capture_on_commit_callbacks: Any,
    log_lines: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        export = score_export_enqueue(run_id="run-1")
        assert sent == []
    assert export is not None
    assert len(callbacks) == 1
    assert sent == [("traces.send_score_export", export.pk)]
    row = ScoreExport.objects.get()
    assert (row.run_ref, row.status, row.attempts) == ("run-1", "pending", 0)
    assert log_lines("[Traces]") == [
        f"[Traces] score_export_queued run_id=run-1 export={export.pk}"
    ]


@override_settings(**ON)
def test_a_run_already_pending_is_queued_once(sent: list[tuple[str, int]]) -> None:
    first = score_export_enqueue(run_id="run-1")
    again = score_export_enqueue(run_id="run-1")
    assert first is not None and again is not None
    assert first.pk == again.pk
    assert ScoreExport.objects.count() == 1


@override_settings(OTLP_EXPORT_QUEUE_MAX=2, **ON)
def test_a_full_queue_drops_its_oldest_pending_export_and_says_so(
    sent: list[tuple[str, int]], log_lines: Any
) -> None:
    ScoreExport.objects.create(run_ref="done", status="sent")
    oldest = score_export_enqueue(run_id="run-1")
    second = score_export_enqueue(run_id="run-2")
    third = score_export_enqueue(run_id="run-3")
    assert oldest is not None and second is not None and third is not None
    statuses = dict(ScoreExport.objects.values_list("run_ref", "status"))
    assert statuses == {
        "done": "sent",
        "run-1": "dropped",
        "run-2": "pending",
        "run-3": "pending",
    }
    oldest.refresh_from_db()
    assert oldest.last_error == (
        "dropped: more than 2 exports were waiting (OTLP_EXPORT_QUEUE_MAX)"
    )
    assert log_lines("[Traces] score_export_dropped") == [
        f"[Traces] score_export_dropped run_id=run-1 export={oldest.pk} "
        "reason=queue_full queue_max=2"
    ]


@override_settings(OTLP_EXPORT_ENDPOINT="")
def test_nothing_at_all_happens_when_the_setting_is_empty(
    sent: list[tuple[str, int]],
    django_capture_on_commit_callbacks: Any,
    log_lines: Any,
) -> None:
    ScoreExport.objects.create(
        run_ref="old", created_at=timezone.now() - timedelta(days=1)
    )
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        score_export_schedule(run_id="run-1")
        assert score_export_enqueue(run_id="run-1") is None
        assert score_exports_resend() == ()
    assert callbacks == []
    assert sent == []
    assert list(ScoreExport.objects.values_list("run_ref", flat=True)) == ["old"]
    assert log_lines("[Traces]") == []


@override_settings(**ON)
def test_schedule_queues_after_the_commit_and_survives_a_failure(
    monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    def broken(**kwargs: Any) -> None:
        raise RuntimeError("database gone")

    monkeypatch.setattr(export_queue, "score_export_enqueue", broken)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        score_export_schedule(run_id="run-1")
    # Robust: the failure is logged by Django, the caller goes on.
    assert len(callbacks) == 1


@override_settings(**ON)
def test_a_broker_down_leaves_the_export_pending_for_the_sweep(
    monkeypatch: Any, django_capture_on_commit_callbacks: Any, log_lines: Any
) -> None:
    def down(name: str, pk: int) -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr(export_queue, "enqueue", down)
    with django_capture_on_commit_callbacks(execute=True):
        export = score_export_enqueue(run_id="run-1")
    assert export is not None
    assert ScoreExport.objects.get().status == "pending"
    assert log_lines("[Traces] score_export_deferred") == [
        f"[Traces] score_export_deferred run_id=run-1 export={export.pk} "
        "reason=broker_unavailable"
    ]


@override_settings(**ON)
def test_the_sweep_resends_only_pending_exports_older_than_its_window(
    sent: list[tuple[str, int]], log_lines: Any
) -> None:
    now = timezone.now()
    old = now - timedelta(seconds=export_queue.SWEEP_AFTER_S + 1)
    stale = ScoreExport.objects.create(run_ref="a", created_at=old)
    ScoreExport.objects.create(run_ref="b", created_at=now)
    ScoreExport.objects.create(run_ref="c", created_at=old, status="failed")
    assert score_exports_resend(now=now) == (stale.pk,)
    assert sent == [("traces.send_score_export", stale.pk)]
    assert log_lines("[Traces] score_export_sweep") == [
        "[Traces] score_export_sweep resent=1"
    ]
