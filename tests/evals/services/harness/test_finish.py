"""The eval harness service: metrics and verdicts of whole runs (EV-C5
summary line, EV-C7 a run without actions, a regressed script, the upstream
idle suite measured as upstream)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evals.models import Run
from tests.evals.harness_support import (
    SHIPPED,
    lines_of,
    run_suite,
    write_lines,
)

pytestmark = pytest.mark.django_db


# --- EV-C5, EV-C7 ------------------------------------------------------------


def test_ev_c5_summary_line_and_stored_metrics(log_lines: Any) -> None:
    run = run_suite(SHIPPED / "smoke.jsonl")

    assert log_lines("[Eval] summary") == [
        "[Eval] summary action_rate=0.4 grounding_pass_rate=1 repetition_rate=0 "
        "compulsion_proxy=0 latency_p95_ms=455.1"
    ]
    assert run.metrics["action_rate"] == 0.4
    assert run.metrics["latency_p50_ms"] == 310.0
    assert run.metrics["latency_p95_ms"] == 455.1
    assert run.metrics["inertia_count"] == 0
    assert "tasks_created" not in run.metrics


def test_ev_c7_run_without_any_action_passes(suites: Path, log_lines: Any) -> None:
    calm = suites / "calm.jsonl"
    write_lines(calm, lines_of(suites / "smoke.jsonl")[:2])

    run = run_suite(calm, script_path=suites / "smoke.script.jsonl")

    assert run.metrics["action_rate"] == 0.0
    assert log_lines("[Eval] summary") == [
        "[Eval] summary action_rate=0 grounding_pass_rate=1 repetition_rate=0 "
        "compulsion_proxy=0 latency_p95_ms=310"
    ]
    assert log_lines("[Eval] PASS") == [
        "[Eval] PASS properties_satisfied=true action_rate_may_be_zero=true"
    ]
    assert (run.status, run.verdict_passed, run.failed_properties) == (
        Run.Status.COMPLETED,
        True,
        [],
    )


def test_regressed_script_fails_on_compulsion(log_lines: Any) -> None:
    run = run_suite(
        SHIPPED / "idle-v1.jsonl",
        script_path=SHIPPED / "idle-v1-regressed.script.jsonl",
    )

    assert log_lines("[Eval] FAIL") == [
        "[Eval] FAIL properties_satisfied=false failed=no_compulsion"
    ]
    assert log_lines("[Eval] PASS") == []
    assert (run.status, run.verdict_passed, run.failed_properties) == (
        Run.Status.COMPLETED,
        False,
        ["no_compulsion"],
    )
    assert (run.passed_cases, run.failed_cases, run.total_cases) == (18, 2, 20)
    assert run.metrics["compulsion_count"] == 2
    failing = sorted(
        run.case_results.filter(passed=False).values_list("case_id", flat=True)
    )
    assert failing == ["idle-v1:stable-meadow-day", "idle-v1:villager-passing"]


UPSTREAM = Path(__file__).resolve().parents[2] / "core" / "upstream"


def test_the_upstream_idle_suite_runs_and_measures_as_upstream(
    suites: Path,
) -> None:
    # The upstream suite and a mixed script, through the whole harness: the
    # stored metrics equal what the reference harness computes for them.
    shutil.copy(UPSTREAM / "idle-v1.jsonl", suites / "upstream-idle.jsonl")
    script = suites / "upstream-idle.script.jsonl"
    shutil.copy(UPSTREAM / "idle-v1.mixed.script.jsonl", script)
    expected = json.loads((UPSTREAM / "idle-v1.mixed.expected.json").read_text())

    run = run_suite(suites / "upstream-idle.jsonl", script_path=script)

    assert (run.status, run.total_cases) == (Run.Status.COMPLETED, 20)
    want = expected["metrics"]
    for name in (
        "action_rate",
        "grounding_pass_rate",
        "repetition_rate",
        "compulsion_count",
        "inertia_count",
        "hallucination_count",
        "anchoring_ratio_mean",
        "latency_p50_ms",
        "latency_p95_ms",
    ):
        assert run.metrics[name] == pytest.approx(want[name]), name
    passed = {c.case_id: c.passed for c in run.case_results.all()}
    assert passed == {s["scenario_id"]: s["pass"] for s in expected["scenarios"]}
