"""The harness's demo data: runs of both shipped suites, one FAIL, idempotent."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings as django_settings

from evals.demo import DEMO_RUNS, load_demo
from evals.models import Run

pytestmark = pytest.mark.django_db


def test_demo_loader_is_registered() -> None:
    assert "evals.demo.load_demo" in django_settings.DEMO_DATA_LOADERS


def test_demo_records_runs_of_both_suites_with_one_fail(owner: Any) -> None:
    summary = load_demo(owner=owner)

    assert summary == (
        "eval runs recorded: smoke-minimal=PASS, smoke-balanced=PASS, "
        "smoke-end-to-end=PASS, idle-v1-balanced=PASS, idle-v1-rich=PASS, "
        "idle-v1-regressed=FAIL"
    )
    runs = Run.objects.all()
    assert runs.count() == len(DEMO_RUNS)
    assert sorted(runs.values_list("benchmark__benchmark_id", flat=True)) == [
        "idle-v1",
        "idle-v1",
        "idle-v1",
        "smoke",
        "smoke",
        "smoke",
    ]
    assert set(runs.values_list("status", flat=True)) == {Run.Status.COMPLETED}
    assert list(runs.filter(verdict_passed=False).values_list("config__demoKey")) == [
        ("idle-v1-regressed",)
    ]
    assert {r.created_by for r in runs} == {owner}
    end_to_end = runs.get(config__demoKey="smoke-end-to-end")
    assert end_to_end.metrics["tasks_created"] == 2


def test_loading_the_demo_twice_records_nothing_new(owner: Any) -> None:
    load_demo(owner=owner)

    again = load_demo(owner=owner)

    assert again == "eval runs: all 6 demo runs already recorded"
    assert Run.objects.count() == len(DEMO_RUNS)
