"""Finishing a scenario eval run: metrics, verdict, ``summary.json``.

The lifecycle closes the run (status, counts, the eval-store contract's run summary);
these
are the harness's hooks into it. Metrics and the verdict are computed from
the stored scenario artifacts in suite order. A scenario that never ran
counts as errored, so the verdict FAILs on ``no_scenario_errors``, as does a
run that was failed. After the run is closed: ``summary.json`` in the run's
bundle, EV-C5's summary line, then EV-C7's ``[Eval] PASS ...`` line or
``[Eval] FAIL properties_satisfied=false failed=<properties>``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.core.bundles import summary_artifact
from evals.core.claim_metrics import claim_metrics
from evals.core.events import bundle_id, events_jsonl, run_context, run_events
from evals.core.files import sync_to_disk, write_json_atomic, write_text_atomic
from evals.core.metrics import (
    compute_metrics,
    evaluate_verdict,
    format_metric,
    metrics_to_wire,
)
from evals.core.outcomes import model_config_of
from evals.core.repeats import reducer_of, repeats_of
from evals.core.run_uncertainty import run_uncertainty
from evals.core.scenario_artifact import is_scenario_artifact
from evals.core.stats import split_epoch
from evals.core.stats_input import StatInputError
from evals.core.suite_types import (
    EvalMetrics,
    EvalVerdict,
    ScenarioOutcome,
    VerdictProperty,
)
from evals.models import CaseResult, Run
from evals.selectors.runs import in_suite_order
from evals.services.harness.artifacts import case_artifact, case_outcome
from evals.services.runs.executors import RunVerdict
from evalsite.paths import shown

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SuiteReport:
    """What ``suite_run_finished`` needs from the verdict's computation."""

    metrics: EvalMetrics
    verdict: EvalVerdict


def suite_run_verdict(
    run: Run, cases: Sequence[CaseResult], *, missing: int, failed: bool
) -> RunVerdict:
    ordered = in_suite_order(cases)
    artifacts = [case_artifact(c) for c in ordered]
    outcomes = [case_outcome(c, a) for c, a in zip(ordered, artifacts, strict=True)]
    # With repeats the metrics see one pass over the suite after another
    # (epoch, then suite order): a scenario's epochs side by side would
    # count as repetitions of one another. One epoch: suite order, as ever.
    epoch_major = sorted(
        range(len(outcomes)), key=lambda i: split_epoch(ordered[i].case_id)[1]
    )
    metrics = compute_metrics([outcomes[i] for i in epoch_major])
    verdict = evaluate_verdict(metrics, outcomes)
    failed_properties = set(verdict.failed_properties)
    if missing or failed:
        failed_properties.add(VerdictProperty.NO_SCENARIO_ERRORS.value)
    claims = claim_metrics(a.claims for a in artifacts)
    return RunVerdict(
        metrics={**metrics_to_wire(metrics), **claims},
        passed=not failed_properties,
        failed_properties=tuple(sorted(failed_properties)),
        errored_cases=metrics.scenarios_errored,
        cases=ordered,
        report=SuiteReport(metrics=metrics, verdict=verdict),
        uncertainty=_uncertainty(run, ordered, outcomes),
    )


def stored_run_uncertainty(run: Run) -> dict[str, Any]:
    """The figures of a finished run with their intervals: as stored when
    it finished, or, for a run finished before they were stored, computed
    from its case results (read as one epoch per scenario) and stored, once,
    so the next view reads them (a 10,000-case run took ~2 s a view)."""
    if run.uncertainty or run.completed_at is None:
        return dict(run.uncertainty or {})
    ordered = in_suite_order(run.case_results.all())
    outcomes = [case_outcome(c) for c in ordered if is_scenario_artifact(c.details)]
    if len(outcomes) != len(ordered):
        return {}
    computed = _uncertainty(run, ordered, outcomes)
    # Only while nothing else was stored meanwhile (a run's human scores
    # write their figures beside these).
    Run.objects.filter(pk=run.pk, uncertainty={}).update(uncertainty=computed)
    run.uncertainty = computed
    return dict(computed)


def _uncertainty(
    run: Run, ordered: Sequence[CaseResult], outcomes: Sequence[ScenarioOutcome]
) -> dict[str, Any]:
    """The run's figures with their intervals; a run whose cases the
    statistics cannot use (a partial run with fewer epochs of a scenario
    than its ``pass_at_k`` needs) records why instead."""
    repeats = repeats_of(run.config)
    try:
        return run_uncertainty(
            outcomes,
            [c.passed for c in ordered],
            repeats=repeats,
            reducer=reducer_of(run.config),
        )
    except StatInputError as exc:
        return {"repeats": repeats, "error": exc.message}


def suite_run_finished(run: Run, verdict: RunVerdict) -> None:
    report: SuiteReport = verdict.report
    metrics = report.metrics
    _write_summary(run, report.verdict, dict(verdict.metrics), verdict.cases)
    logger.info(
        "[Eval] summary action_rate=%s grounding_pass_rate=%s repetition_rate=%s "
        "compulsion_proxy=%s latency_p95_ms=%s",
        format_metric(metrics.action_rate),
        format_metric(metrics.grounding_pass_rate),
        format_metric(metrics.repetition_rate),
        format_metric(metrics.compulsion_proxy),
        format_metric(metrics.latency_p95_ms),
        extra={"run_id": run.run_id},
    )
    if verdict.passed:
        logger.info(
            "[Eval] PASS properties_satisfied=true action_rate_may_be_zero=true",
            extra={"run_id": run.run_id},
        )
    else:
        logger.info(
            "[Eval] FAIL properties_satisfied=false failed=%s",
            ",".join(sorted(verdict.failed_properties)),
            extra={"run_id": run.run_id},
        )


def _existing(*directories: Path) -> list[Path]:
    return [d for d in directories if d.is_dir()]


def _write_summary(
    run: Run,
    verdict: EvalVerdict,
    metrics: dict[str, float | int],
    cases: Sequence[CaseResult],
) -> None:
    config = run.config
    # summary_artifact derives pass/fail per scenario from the verdict; a
    # failed run's verdict must not read as PASS.
    failed = tuple(run.failed_properties)
    document = summary_artifact(
        run_id=run.run_id,
        suite_id=run.benchmark.benchmark_id,
        suite_sha256=run.suite_sha256,
        suite_line_count=config.get("suiteLineCount", run.total_cases),
        profile=config["profile"],
        mode=config["mode"],
        model=model_config_of(config),
        status=run.status,
        started_at=run.started_at.isoformat(),
        completed_at=run.completed_at.isoformat() if run.completed_at else None,
        metrics=metrics,
        verdict=EvalVerdict(
            passed=bool(run.verdict_passed),
            failed_properties=failed,
            per_scenario=verdict.per_scenario,
        ),
        suite_path=shown(config.get("suitePath")) or None,
    )
    document["run"]["versions"] = config.get("versions")
    # Cases that never ran are neither passed nor failed (the eval-store contract's
    # counts
    # then agree with the case results); notRunCases says how many.
    document["totalCases"] = run.total_cases
    document["notRunCases"] = max(run.total_cases - len(verdict.per_scenario), 0)
    if run.error:
        document["run"]["error"] = run.error
    oracle = config.get("oracleVersion") or next(
        (
            case_artifact(c).scenario.version
            for c in cases
            if is_scenario_artifact(c.details)
        ),
        None,
    )
    document["run"]["oracleVersion"] = oracle
    document["run"]["bundleId"] = bundle_id(document)
    run_dir = Path(run.artifacts_dir)
    # summary.json on disk means the bundle is complete (EV-C4): the scenario
    # files, written without a sync each, reach the disk first (the run's
    # directory and the scenarios' directory: the same filesystem, unless
    # one of them is a mount point of its own).
    sync_to_disk(*_existing(run_dir, run_dir / "scenarios"))
    write_json_atomic(run_dir / "summary.json", document)
    context = run_context(
        run_id=run.run_id,
        mode=config["mode"],
        suite_id=run.benchmark.benchmark_id,
        profile=config["profile"],
        sampler=config["sampler"],
        model_id=config["modelId"],
        oracle_version=oracle,
    )
    events = run_events(
        run=context,
        suite_path=config.get("suitePath") or "",
        suite_line_count=config.get("suiteLineCount", run.total_cases),
        suite_sha256=run.suite_sha256,
        sampler_params=config.get("samplerParams"),
        started_at=run.started_at.isoformat(),
        completed_at=run.completed_at.isoformat() if run.completed_at else None,
        scenarios=[case_artifact(c) for c in cases if is_scenario_artifact(c.details)],
        metrics=metrics,
        verdict_pass=bool(run.verdict_passed),
    )
    write_text_atomic(run_dir / "events.jsonl", events_jsonl(events))
