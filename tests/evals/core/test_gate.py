"""The CI gate on hand-made stores, its reports, and the metric registry."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from core.errors import NotFound
from evals.core.baselines import validate_baseline_snapshot
from evals.core.gate import (
    BaselineNotFound,
    BaselineSource,
    DeltaOutcome,
    evaluate_gate,
    format_number,
)
from evals.core.gate_report import verdict_to_json, verdict_to_markdown
from evals.core.metric_registry import MetricDirection, direction, parse_overrides
from evals.core.runs import validate_run_summary
from evals.core.store import StoreContents
from evals.core.store_reader import load_store
from evals.core.store_writer import EvalStore

SHADOW: dict[str, Any] = {
    "schemaVersion": 1,
    "traceId": "t1",
    "recordedAt": "2026-03-06T10:03:00.000Z",
    "sessionKey": "agent:main",
    "promptHash": "abc123",
    "promptLength": 42,
    "retrievalQueryHash": "def456",
    "retrievalQueryLength": 42,
    "recallMode": "full",
    "recallResultLimit": 4,
    "source": "hot_qmd",
    "recalledMemoryCount": 2,
    "injected": True,
    "contextChars": 240,
    "memoryIds": ["mem-1"],
    "durationMs": 22,
}


def run(
    run_id: str,
    benchmark_id: str,
    passed: int,
    total: int,
    *,
    metrics: Mapping[str, float] | None = None,
    completed_at: str = "2026-03-06T10:00:00Z",
    status: str = "completed",
    cases: dict[str, bool] | None = None,
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": benchmark_id,
        "status": status,
        "startedAt": "2026-03-06T09:00:00Z",
        "completedAt": completed_at,
        "totalCases": total,
        "passedCases": passed,
        "failedCases": total - passed,
    }
    if metrics is not None:
        document["metrics"] = dict(metrics)
    if cases is not None:
        document["caseResults"] = [{"caseId": k, "passed": v} for k, v in cases.items()]
    return document


def snapshot(snapshot_id: str, *benchmarks: dict[str, Any]) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "snapshotId": snapshot_id,
        "createdAt": "2026-03-06T12:00:00.000Z",
        "sourceRootDir": "/srv/main-evals",
        "benchmarkCount": len(benchmarks),
        "benchmarks": list(benchmarks),
    }


def make_store(
    root: Path,
    runs: Sequence[dict[str, Any]] = (),
    *,
    baselines: Sequence[dict[str, Any]] = (),
    raw: dict[str, str] | None = None,
) -> StoreContents:
    store = EvalStore(root)
    root.mkdir(parents=True, exist_ok=True)
    for document in runs:
        store.write_run(validate_run_summary(document))
    for document in baselines:
        store.write_baseline(validate_baseline_snapshot(document))
    for relative, text in (raw or {}).items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return load_store(root)


AOS, TVR = "actionOutcomeScore", "trustViolationRate"


@pytest.fixture
def base(tmp_path: Path) -> StoreContents:
    return make_store(
        tmp_path / "base",
        [
            run("b-ama", "ama-memory", 9, 12, metrics={AOS: 0.81, TVR: 0.05}),
            run("b-obj", "objective-state", 4, 4),
            run(
                "b-old",
                "ama-memory",
                12,
                12,
                completed_at="2026-03-01T00:00:00Z",
            ),
        ],
    )


def test_improvement_passes(tmp_path: Path, base: StoreContents) -> None:
    candidate = make_store(
        tmp_path / "candidate",
        [
            run("c-ama", "ama-memory", 10, 12, metrics={AOS: 0.85, TVR: 0.02}),
            run("c-obj", "objective-state", 4, 4),
        ],
    )

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert verdict.passed
    assert verdict.regressions == ()
    assert verdict.improvements == (
        "ama-memory pass rate improved (0.75 -> 0.8333)",
        "ama-memory actionOutcomeScore 0.81 -> 0.85",
        "ama-memory trustViolationRate 0.05 -> 0.02",
    )
    assert verdict.compared_benchmarks == 2
    assert verdict.baseline_resolved_from is None


def test_regression_and_missing_benchmark_fail(
    tmp_path: Path, base: StoreContents
) -> None:
    candidate = make_store(
        tmp_path / "candidate",
        [
            run("c-ama", "ama-memory", 6, 12, metrics={AOS: 0.7, TVR: 0.1}),
            run("c-obj", "objective-state", 4, 4, status="failed"),
        ],
    )

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert not verdict.passed
    assert verdict.missing_candidate_benchmarks == ("objective-state",)
    assert verdict.regressions == (
        "candidate is missing latest completed benchmark run for objective-state",
        "ama-memory pass rate regressed (0.75 -> 0.5)",
        "ama-memory actionOutcomeScore 0.81 -> 0.7",
        "ama-memory trustViolationRate 0.05 -> 0.1",
    )
    assert verdict.improvements == ()
    [delta] = verdict.deltas
    assert delta.regressions == (
        "passRate 0.75 -> 0.5",
        "actionOutcomeScore 0.81 -> 0.7",
        "trustViolationRate 0.05 -> 0.1",
    )


def test_broken_shadow_file_fails(tmp_path: Path, base: StoreContents) -> None:
    candidate = make_store(
        tmp_path / "candidate",
        [
            run("c-ama", "ama-memory", 9, 12, metrics={AOS: 0.81, TVR: 0.05}),
            run("c-obj", "objective-state", 4, 4),
        ],
        raw={"shadow/2026-03-06/broken.json": '{"schemaVersion":1}'},
    )

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert not verdict.passed
    assert verdict.regressions == ("candidate store has 1 invalid shadow record(s)",)
    assert verdict.invalid_candidate.shadows == 1


def test_every_kind_of_invalid_candidate_artifact_fails(
    tmp_path: Path, base: StoreContents
) -> None:
    candidate = make_store(
        tmp_path / "candidate",
        [run("c-ama", "ama-memory", 9, 12, metrics={AOS: 0.81, TVR: 0.05})],
        raw={
            "benchmarks/x/manifest.json": "{}",
            "runs/x.json": "[]",
            "runs/y.json": "",
            "shadow/2026-03-06/a.json": "{}",
            "baselines/b.json": "{}",
        },
    )

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert verdict.regressions[:4] == (
        "candidate store has 1 invalid benchmark manifest(s)",
        "candidate store has 2 invalid run summary file(s)",
        "candidate store has 1 invalid shadow record(s)",
        "candidate store has 1 invalid baseline snapshot file(s)",
    )


def test_invalid_base_artifacts_fail_the_gate_first(tmp_path: Path) -> None:
    # As the reference gate: a broken record in the base store is a
    # regression, listed before the candidate's.
    base = make_store(
        tmp_path / "base",
        [run("b", "ama", 1, 2)],
        raw={"shadow/2026-03-06/broken.json": "{}", "runs/bad.json": "[]"},
    )
    candidate = make_store(
        tmp_path / "candidate",
        [run("c", "ama", 1, 2)],
        raw={"shadow/2026-03-07/broken.json": "{}"},
    )

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert verdict.passed is False
    assert verdict.invalid_base is not None
    assert verdict.invalid_base.shadows == 1
    assert verdict.regressions == (
        "base store has 1 invalid run summary file(s)",
        "base store has 1 invalid shadow record(s)",
        "candidate store has 1 invalid shadow record(s)",
    )


def test_unchanged_metrics_and_pass_rate_are_neither(tmp_path: Path) -> None:
    base = make_store(tmp_path / "b", [run("b", "ama", 3, 10, metrics={"m": 0.3})])
    # 0.1 + 0.2 != 0.3 in floats: noise must not count as a change
    candidate = make_store(
        tmp_path / "c", [run("c", "ama", 3, 10, metrics={"m": 0.1 + 0.2})]
    )

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert (verdict.passed, verdict.regressions, verdict.improvements) == (True, (), ())
    [delta] = verdict.deltas
    assert delta.pass_rate_outcome is DeltaOutcome.UNCHANGED
    assert delta.metric_deltas[0].delta == 0
    assert delta.metric_deltas[0].outcome is DeltaOutcome.UNCHANGED


def test_only_shared_metrics_are_compared(tmp_path: Path) -> None:
    base = make_store(
        tmp_path / "b", [run("b", "ama", 1, 1, metrics={"old": 1, "both": 1})]
    )
    candidate = make_store(
        tmp_path / "c", [run("c", "ama", 1, 1, metrics={"new": 0, "both": 2})]
    )

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert [m.name for m in verdict.deltas[0].metric_deltas] == ["both"]
    assert verdict.improvements == ("ama both 1 -> 2",)


def test_a_metric_named_like_the_pass_rate_is_still_judged(tmp_path: Path) -> None:
    base = make_store(tmp_path / "b", [run("b", "s", 1, 1, metrics={"passRate": 0.9})])
    candidate = make_store(
        tmp_path / "c", [run("c", "s", 1, 1, metrics={"passRate": 0.8})]
    )

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert (verdict.passed, verdict.regressions) == (False, ("s passRate 0.9 -> 0.8",))


def test_neutral_metrics_are_reported_but_never_judged(tmp_path: Path) -> None:
    base = make_store(
        tmp_path / "b", [run("b", "s", 1, 1, metrics={"action_rate": 0.4})]
    )
    candidate = make_store(
        tmp_path / "c", [run("c", "s", 1, 1, metrics={"action_rate": 0})]
    )

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert (verdict.passed, verdict.regressions, verdict.improvements) == (True, (), ())
    assert verdict.deltas[0].metric_deltas[0].outcome is DeltaOutcome.NEUTRAL
    assert verdict.deltas[0].metric_deltas[0].delta == -0.4


def test_lower_is_better_metrics_from_the_registry(tmp_path: Path) -> None:
    metrics_before = {
        "latency_p95_ms": 800,
        "hallucination_count": 2,
        "grounding_pass_rate": 1,
    }
    metrics_after = {
        "latency_p95_ms": 900,
        "hallucination_count": 1,
        "grounding_pass_rate": 0.9,
    }
    base = make_store(tmp_path / "b", [run("b", "s", 1, 1, metrics=metrics_before)])
    candidate = make_store(tmp_path / "c", [run("c", "s", 1, 1, metrics=metrics_after)])

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert verdict.regressions == (
        "s grounding_pass_rate 1 -> 0.9",
        "s latency_p95_ms 800 -> 900",
    )
    assert verdict.improvements == ("s hallucination_count 2 -> 1",)


def test_overrides_change_a_direction(tmp_path: Path) -> None:
    base = make_store(tmp_path / "b", [run("b", "s", 1, 1, metrics={"costUsd": 2})])
    candidate = make_store(
        tmp_path / "c", [run("c", "s", 1, 1, metrics={"costUsd": 3})]
    )

    default = evaluate_gate(base=base, candidate=candidate)
    overridden = evaluate_gate(
        base=base,
        candidate=candidate,
        overrides={"costUsd": MetricDirection.LOWER_IS_BETTER},
    )

    assert default.improvements == ("s costUsd 2 -> 3",)
    assert overridden.regressions == ("s costUsd 2 -> 3",)


# --- stored baseline snapshots ------------------------------------------------

ENTRY = {
    "benchmarkId": "ama",
    "runId": "main-1",
    "passRate": 0.75,
    "metrics": {AOS: 0.8},
}


def test_snapshot_is_read_from_the_base_store(tmp_path: Path) -> None:
    base = make_store(tmp_path / "b", baselines=[snapshot("required-main", ENTRY)])
    candidate = make_store(
        tmp_path / "c",
        [run("c", "ama", 3, 4, metrics={AOS: 0.7})],
        baselines=[snapshot("required-main", {**ENTRY, "passRate": 0.5})],
    )

    verdict = evaluate_gate(base=base, candidate=candidate, snapshot_id="required-main")

    assert verdict.baseline_resolved_from is BaselineSource.BASE
    assert verdict.regressions == ("ama actionOutcomeScore 0.8 -> 0.7",)
    assert verdict.deltas[0].base_run_id == "main-1"
    assert verdict.invalid_base is None


def test_snapshot_bootstraps_from_the_candidate(tmp_path: Path) -> None:
    base = make_store(tmp_path / "b", [run("b", "ama", 0, 4)])
    candidate = make_store(
        tmp_path / "c",
        [run("c", "ama", 3, 4, metrics={AOS: 0.9})],
        baselines=[snapshot("required-main", ENTRY)],
    )

    verdict = evaluate_gate(base=base, candidate=candidate, snapshot_id="required-main")

    assert verdict.passed
    assert verdict.baseline_resolved_from is BaselineSource.CANDIDATE
    assert verdict.improvements == ("ama actionOutcomeScore 0.8 -> 0.9",)
    assert verdict_to_json(verdict)["baselineResolvedFrom"] == "candidate"


def test_snapshot_missing_benchmark_fails(tmp_path: Path) -> None:
    entries = (ENTRY, {"benchmarkId": "gone", "runId": "main-2", "passRate": 1})
    base = make_store(tmp_path / "b", baselines=[snapshot("required-main", *entries)])
    candidate = make_store(tmp_path / "c", [run("c", "ama", 3, 4, metrics={AOS: 0.8})])

    verdict = evaluate_gate(base=base, candidate=candidate, snapshot_id="required-main")

    assert verdict.regressions == (
        "candidate is missing latest completed benchmark run for gone",
    )


def test_snapshot_not_found(tmp_path: Path) -> None:
    base = make_store(tmp_path / "b")
    candidate = make_store(tmp_path / "c", baselines=[snapshot("other", ENTRY)])

    with pytest.raises(BaselineNotFound) as caught:
        evaluate_gate(base=base, candidate=candidate, snapshot_id="required-main")

    assert (
        caught.value.message == "benchmark baseline snapshot not found: required-main"
    )
    assert isinstance(caught.value, NotFound)


def test_invalid_base_snapshot_bootstraps_from_the_candidate(tmp_path: Path) -> None:
    # The reference gate reads only valid snapshots: a broken base copy is as
    # good as none, and the candidate's snapshot of that id is the baseline.
    base = make_store(tmp_path / "b", raw={"baselines/required-main.json": "{}"})
    candidate = make_store(
        tmp_path / "c",
        [run("c", "ama", 3, 4, metrics={AOS: 0.9})],
        baselines=[snapshot("required-main", ENTRY)],
    )

    verdict = evaluate_gate(base=base, candidate=candidate, snapshot_id="required-main")

    assert verdict.passed
    assert verdict.baseline_resolved_from is BaselineSource.CANDIDATE
    assert verdict.improvements == ("ama actionOutcomeScore 0.8 -> 0.9",)


def test_invalid_base_snapshot_and_none_in_candidate_is_not_found(
    tmp_path: Path,
) -> None:
    base = make_store(tmp_path / "b", raw={"baselines/required-main.json": "{}"})
    candidate = make_store(tmp_path / "c", [run("c", "ama", 3, 4)])

    with pytest.raises(BaselineNotFound) as caught:
        evaluate_gate(base=base, candidate=candidate, snapshot_id="required-main")

    assert caught.value.message == (
        "benchmark baseline snapshot not found: required-main"
    )


# --- beyond the seed: min cases and flipped cases -----------------------------


def test_min_cases_makes_small_benchmarks_inconclusive(tmp_path: Path) -> None:
    base = make_store(
        tmp_path / "b",
        [run("b1", "tiny", 3, 3, metrics={AOS: 0.9}), run("b2", "big", 9, 10)],
    )
    candidate = make_store(
        tmp_path / "c",
        [run("c1", "tiny", 1, 3, metrics={AOS: 0.8}), run("c2", "big", 8, 10)],
    )

    verdict = evaluate_gate(base=base, candidate=candidate, min_cases=5)

    assert verdict.inconclusive == ("tiny",)
    assert verdict.regressions == (
        "big pass rate regressed (0.9 -> 0.8)",
        "tiny actionOutcomeScore 0.9 -> 0.8",
    )
    tiny = verdict.deltas[1]
    assert (tiny.benchmark_id, tiny.inconclusive) == ("tiny", True)


def test_without_min_cases_small_benchmarks_are_judged(tmp_path: Path) -> None:
    base = make_store(tmp_path / "b", [run("b1", "tiny", 3, 3)])
    candidate = make_store(tmp_path / "c", [run("c1", "tiny", 1, 3)])

    verdict = evaluate_gate(base=base, candidate=candidate)

    assert verdict.regressions == ("tiny pass rate regressed (1 -> 0.3333)",)
    assert verdict.inconclusive == ()


def test_flipped_cases_are_listed_when_both_runs_have_case_results(
    tmp_path: Path,
) -> None:
    base = make_store(
        tmp_path / "b",
        [run("b", "s", 2, 3, cases={"c1": True, "c2": True, "c3": False})],
    )
    candidate = make_store(
        tmp_path / "c",
        [run("c", "s", 2, 4, cases={"c1": False, "c2": True, "c3": True, "c4": False})],
    )

    verdict = evaluate_gate(base=base, candidate=candidate)

    [delta] = verdict.deltas
    assert delta.cases_flipped_to_fail == ("c1",)
    assert delta.cases_flipped_to_pass == ("c3",)
    assert [(f.case_id, f.to_passed) for f in verdict.flipped_cases] == [
        ("c1", False),
        ("c3", True),
    ]


def test_flipped_cases_against_a_snapshot_use_the_snapshot_run(tmp_path: Path) -> None:
    base = make_store(
        tmp_path / "b",
        [run("main-1", "ama", 1, 2, cases={"x": True, "y": False})],
        baselines=[snapshot("required-main", {**ENTRY, "passRate": 0.5})],
    )
    candidate = make_store(
        tmp_path / "c", [run("c", "ama", 1, 2, cases={"x": False, "y": True})]
    )

    verdict = evaluate_gate(base=base, candidate=candidate, snapshot_id="required-main")

    assert verdict.deltas[0].cases_flipped_to_fail == ("x",)


def test_no_flips_without_case_results(tmp_path: Path, base: StoreContents) -> None:
    candidate = make_store(tmp_path / "c", [run("c", "ama-memory", 9, 12, cases=None)])

    assert evaluate_gate(base=base, candidate=candidate).flipped_cases == ()


# --- reports ------------------------------------------------------------------


def test_json_report(tmp_path: Path, base: StoreContents) -> None:
    candidate = make_store(
        tmp_path / "candidate",
        [run("c-ama", "ama-memory", 6, 12, metrics={AOS: 0.7, TVR: 0.1})],
    )

    report = verdict_to_json(evaluate_gate(base=base, candidate=candidate))

    assert report == {
        "passed": False,
        "mode": "stores",
        "baseRootDir": str(tmp_path / "base"),
        "candidateRootDir": str(tmp_path / "candidate"),
        "baselineSnapshotId": None,
        "baselineCreatedAt": None,
        "baselineSourceRootDir": None,
        "baselineResolvedFrom": None,
        "comparedBenchmarks": 1,
        "missingCandidateBenchmarks": ["objective-state"],
        "invalidArtifacts": {
            "base": {"benchmarks": 0, "runs": 0, "shadows": 0, "baselines": 0},
            "candidate": {"benchmarks": 0, "runs": 0, "shadows": 0, "baselines": 0},
        },
        "regressions": [
            "candidate is missing latest completed benchmark run for objective-state",
            "ama-memory pass rate regressed (0.75 -> 0.5)",
            "ama-memory actionOutcomeScore 0.81 -> 0.7",
            "ama-memory trustViolationRate 0.05 -> 0.1",
        ],
        "improvements": [],
        "minCases": None,
        "inconclusiveBenchmarks": [],
        "deltas": [
            {
                "benchmarkId": "ama-memory",
                "baseRunId": "b-ama",
                "candidateRunId": "c-ama",
                "basePassRate": 0.75,
                "candidatePassRate": 0.5,
                "passRateDelta": -0.25,
                "passRateOutcome": "regression",
                "metricDeltas": {AOS: -0.11, TVR: 0.05},
                "metricOutcomes": {AOS: "regression", TVR: "regression"},
                "regressions": [
                    "passRate 0.75 -> 0.5",
                    "actionOutcomeScore 0.81 -> 0.7",
                    "trustViolationRate 0.05 -> 0.1",
                ],
                "improvements": [],
                "inconclusive": False,
                "baseCases": 12,
                "candidateCases": 12,
                "casesFlippedToFail": [],
                "casesFlippedToPass": [],
            }
        ],
    }
    json.dumps(report)


def test_markdown_report(tmp_path: Path, base: StoreContents) -> None:
    candidate = make_store(
        tmp_path / "candidate",
        [run("c-ama", "ama-memory", 6, 12, metrics={AOS: 0.7, TVR: 0.1})],
    )

    markdown = verdict_to_markdown(evaluate_gate(base=base, candidate=candidate))

    assert markdown == (
        "# Eval Baseline Delta Report\n"
        "\n"
        "- Passed: no\n"
        "- Baseline: latest completed runs of the base store\n"
        f"- Base root: {tmp_path / 'base'}\n"
        f"- Candidate root: {tmp_path / 'candidate'}\n"
        "- Benchmarks compared: 1\n"
        "- Missing candidate benchmarks: objective-state\n"
        "- Invalid candidate artifacts: benchmarks=0, runs=0, shadows=0, baselines=0\n"
        "- Invalid base artifacts: benchmarks=0, runs=0, shadows=0, baselines=0\n"
        "\n"
        "## Regressions\n"
        "- candidate is missing latest completed benchmark run for objective-state\n"
        "- ama-memory pass rate regressed (0.75 -> 0.5)\n"
        "- ama-memory actionOutcomeScore 0.81 -> 0.7\n"
        "- ama-memory trustViolationRate 0.05 -> 0.1\n"
        "\n"
        "## Improvements\n"
        "- none\n"
        "\n"
        "## Benchmark Deltas\n"
        "- ama-memory: passRate 0.75 -> 0.5 (delta -0.25)\n"
        "  - actionOutcomeScore 0.81 -> 0.7 (delta -0.11)\n"
        "  - trustViolationRate 0.05 -> 0.1 (delta 0.05)\n"
    )


def test_markdown_report_for_a_snapshot_with_extras(tmp_path: Path) -> None:
    base = make_store(
        tmp_path / "b",
        [run("main-1", "ama", 1, 2, cases={"x": True, "y": False})],
        baselines=[snapshot("required-main", {**ENTRY, "passRate": 0.5})],
    )
    candidate = make_store(
        tmp_path / "c", [run("c", "ama", 1, 2, cases={"x": False, "y": True})]
    )

    markdown = verdict_to_markdown(
        evaluate_gate(
            base=base, candidate=candidate, snapshot_id="required-main", min_cases=3
        )
    )

    assert (
        "- Passed: yes\n- Baseline snapshot: required-main (resolved from base)\n"
        in markdown
    )
    assert "- Baseline created: 2026-03-06T12:00:00.000Z\n" in markdown
    assert "- Baseline source root: /srv/main-evals\n" in markdown
    assert "- Minimum cases: 3\n" in markdown
    assert (
        "## Inconclusive\n- ama: fewer than 3 cases (base unknown, candidate 2)\n"
        in markdown
    )
    assert (
        "## Flipped Cases\n- ama x: pass -> fail\n- ama y: fail -> pass\n" in markdown
    )
    assert "- Invalid base artifacts" not in markdown


def test_empty_stores_report_none_everywhere(tmp_path: Path) -> None:
    verdict = evaluate_gate(
        base=make_store(tmp_path / "b"), candidate=make_store(tmp_path / "c")
    )

    markdown = verdict_to_markdown(verdict)

    assert verdict.passed
    assert "## Regressions\n- none\n\n## Improvements\n- none\n" in markdown
    assert markdown.endswith("## Benchmark Deltas\n- none\n")


def test_gate_is_deterministic(tmp_path: Path, base: StoreContents) -> None:
    candidate = make_store(tmp_path / "c", [run("c-ama", "ama-memory", 6, 12)])

    first = verdict_to_json(evaluate_gate(base=base, candidate=candidate))
    second = verdict_to_json(
        evaluate_gate(base=load_store(tmp_path / "base"), candidate=candidate)
    )

    assert first == second


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.75, "0.75"),
        (1.0, "1"),
        (0, "0"),
        (2 / 3, "0.6667"),
        (-0.25, "-0.25"),
        (-0.00001, "0"),
        (1000.0, "1000"),
        (812, "812"),
        (0.10000000000000003, "0.1"),
    ],
)
def test_number_format(value: float, text: str) -> None:
    assert format_number(value) == text


# --- metric registry ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("trustViolationRate", MetricDirection.LOWER_IS_BETTER),
        ("policyViolationRate", MetricDirection.LOWER_IS_BETTER),
        ("hallucination_count", MetricDirection.LOWER_IS_BETTER),
        ("hallucination_missing_item", MetricDirection.LOWER_IS_BETTER),
        ("compulsion_proxy", MetricDirection.LOWER_IS_BETTER),
        ("repetition_rate", MetricDirection.LOWER_IS_BETTER),
        ("latency_p95_ms", MetricDirection.LOWER_IS_BETTER),
        ("latency_p50_ms", MetricDirection.LOWER_IS_BETTER),
        ("actionOutcomeScore", MetricDirection.HIGHER_IS_BETTER),
        ("grounding_pass_rate", MetricDirection.HIGHER_IS_BETTER),
        ("somethingNew", MetricDirection.HIGHER_IS_BETTER),
        ("action_rate", MetricDirection.NEUTRAL),
    ],
)
def test_metric_directions(name: str, expected: MetricDirection) -> None:
    assert direction(name) is expected


def test_overrides_win_over_registry_and_rules() -> None:
    overrides = {"latency_p95_ms": MetricDirection.HIGHER_IS_BETTER}

    assert (
        direction("latency_p95_ms", overrides=overrides)
        is MetricDirection.HIGHER_IS_BETTER
    )


def test_parse_overrides() -> None:
    assert parse_overrides(["costUsd=lower_is_better", " x = neutral "]) == {
        "costUsd": MetricDirection.LOWER_IS_BETTER,
        "x": MetricDirection.NEUTRAL,
    }


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("costUsd", "metric direction must be NAME=DIRECTION, got 'costUsd'"),
        (
            "=lower_is_better",
            "metric direction must be NAME=DIRECTION, got '=lower_is_better'",
        ),
        (
            "costUsd=down",
            "metric direction for costUsd must be one of "
            "higher_is_better|lower_is_better|neutral",
        ),
    ],
)
def test_parse_overrides_refuses_malformed_pairs(pair: str, message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("|", r"\|") + "$"):
        parse_overrides([pair])
