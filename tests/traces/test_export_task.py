"""The score export's tasks: one service call each; retry while the service
says so, then stop. And the whole way: a run that finishes goes out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from celery.exceptions import Retry
from django.conf import settings
from django.test import override_settings

from evalsite.dispatch import task_get
from tests.builders import batch_finished
from tests.evals.harness_support import SHIPPED, SMOKE_IDS, run_suite
from tests.traces.otlp_receiver import otlp_receiver
from traces.models import ScoreExport, Span
from traces.services.export import SendResult
from traces.tasks import export as export_tasks

pytestmark = pytest.mark.django_db

CONFIG = {"map": "hazard", "episodes": 3, "seed": 3, "lane_size": 3}


def test_the_tasks_are_registered_by_name() -> None:
    for name in ("traces.send_score_export", "traces.sweep_score_exports"):
        assert task_get(name).name == name


def test_the_sweep_is_on_the_beat_schedule() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["traces-score-export-sweep"]
    assert entry["task"] == "traces.sweep_score_exports"
    assert entry["schedule"].total_seconds() == 60


def test_send_retries_while_the_service_says_retry_then_stops(monkeypatch: Any) -> None:
    answers = [
        SendResult("retry", attempts=1, retry_in_s=5.0),
        SendResult("retry", attempts=2, retry_in_s=10.0),
        SendResult("sent", attempts=3),
    ]
    calls: list[int] = []

    def send(*, export_pk: int) -> SendResult:
        calls.append(export_pk)
        return answers[len(calls) - 1]

    monkeypatch.setattr(export_tasks.export, "score_export_send", send)
    result = export_tasks.send_score_export.delay(7)
    assert result.get() == "sent"
    assert calls == [7, 7, 7]


def test_on_a_worker_a_retry_waits_the_services_backoff(monkeypatch: Any) -> None:
    monkeypatch.setattr(
        export_tasks.export,
        "score_export_send",
        lambda *, export_pk: SendResult("retry", attempts=1, retry_in_s=20.0),
    )
    countdowns: list[float] = []

    def retry(*, countdown: float) -> Retry:
        countdowns.append(countdown)
        return Retry(when=countdown)

    task = export_tasks.send_score_export
    monkeypatch.setattr(task, "retry", retry)
    # Called directly, as a worker calls it: not eager.
    with pytest.raises(Retry):
        task(7)
    assert countdowns == [20.0]


def test_send_gives_up_when_the_service_does(monkeypatch: Any) -> None:
    calls: list[int] = []

    def send(*, export_pk: int) -> SendResult:
        calls.append(export_pk)
        return SendResult("failed", attempts=4, error="gave up")

    monkeypatch.setattr(export_tasks.export, "score_export_send", send)
    assert export_tasks.send_score_export.delay(7).get() == "failed"
    assert calls == [7]


def test_sweep_calls_the_resend_service(monkeypatch: Any) -> None:
    monkeypatch.setattr(
        export_tasks.export_queue, "score_exports_resend", lambda: (3, 4)
    )
    assert export_tasks.sweep_score_exports.delay().get() == 2


@pytest.mark.django_db(transaction=True)
def test_a_finished_run_goes_out_and_survives_two_503s() -> None:
    with (
        otlp_receiver(503, 503, 200) as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url, OTLP_EXPORT_RETRIES=3),
    ):
        run = batch_finished(CONFIG)
    assert len(receiver.received) == 3
    export = ScoreExport.objects.get()
    assert (export.run_ref, export.status, export.attempts) == (run.run_id, "sent", 3)
    events = receiver.received[-1].events()
    names = [e["gen_ai.evaluation.name"] for e in events]
    assert names[:2] == ["evalsite.pass_rate", "evalsite.verdict"]
    assert names.count("evalsite.case") == 3
    assert {e["evalsite.run.id"] for e in events} == {run.run_id}
    assert {e["evalsite.benchmark.kind"] for e in events} == {"gridworld"}


@pytest.mark.django_db(transaction=True)
def test_a_suite_runs_case_verdicts_are_linked_to_their_harness_traces(
    settings: Any, tmp_path: Path
) -> None:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    with (
        otlp_receiver() as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url),
    ):
        run = run_suite(SHIPPED / "smoke.jsonl")
    cases = {
        e["evalsite.case.id"]: e["trace_id"]
        for e in receiver.received[0].events()
        if e["gen_ai.evaluation.name"] == "evalsite.case"
    }
    traces = dict(
        Span.objects.filter(run_ref=run.run_id, parent_span_id="").values_list(
            "case_ref", "trace_id"
        )
    )
    assert sorted(cases) == sorted(SMOKE_IDS)
    assert traces
    assert {case: cases[case] for case in traces} == traces


@pytest.mark.django_db(transaction=True)
def test_a_finished_run_that_never_gets_through_is_failed() -> None:
    with (
        otlp_receiver(503) as receiver,
        override_settings(OTLP_EXPORT_ENDPOINT=receiver.url, OTLP_EXPORT_RETRIES=1),
    ):
        batch_finished(CONFIG)
    assert len(receiver.received) == 2
    export = ScoreExport.objects.get()
    assert (export.status, export.attempts) == ("failed", 2)
    assert export.last_error == "gave up after 2 attempts: HTTP 503 Service Unavailable"


@pytest.mark.django_db(transaction=True)
def test_a_finished_run_exports_nothing_with_the_setting_empty(
    monkeypatch: Any, log_lines: Any
) -> None:
    monkeypatch.setattr(httpx, "post", lambda *a, **k: pytest.fail("posted"))
    with override_settings(OTLP_EXPORT_ENDPOINT=""):
        batch_finished(CONFIG)
    assert ScoreExport.objects.count() == 0
    assert log_lines("[Traces]") == []
