"""The CI gate of the eval-store contract: did a change make outcomes better, worse, or
just different?

Compares a baseline with a candidate eval store and decides pass/fail.

Baseline, two modes:

- stores (no snapshot id): the latest completed run per benchmark of the
  base store;
- snapshot: the named snapshot from the base store's valid baselines, else
  from the candidate's (bootstrap, for the rollout where the base branch has
  not adopted it yet; ``baseline_resolved_from`` says which). A base store
  whose copy of the snapshot file is invalid bootstraps the same way, as the
  reference gate does (it reads only valid snapshots). In neither:
  ``benchmark baseline snapshot not found: <id>``.

Candidate: the latest completed run per benchmark of the candidate store
(newest completedAt, else startedAt).

Regressions, each failing the gate, in this order:

1. invalid artifacts of any kind, base store first, then candidate
   (``base store has N invalid run summary file(s)``, ``candidate store has
   N invalid shadow record(s)``, ...), as the reference gate does: a broken
   record in either store makes the comparison untrustworthy. In snapshot
   mode only the snapshot is read from the base store, so only the
   candidate's artifacts count;
2. a baseline benchmark with no latest completed candidate run
   (``candidate is missing latest completed benchmark run for <id>``, ids
   sorted, also in ``missing_candidate_benchmarks``);
3. per benchmark (sorted by id): a pass-rate drop
   (``<id> pass rate regressed (<base> -> <cand>)``), then each shared metric
   moving the wrong way for its registry direction
   (``<id> <metric> <base> -> <cand>``, metrics sorted by name).

Improvements are listed the same way (``<id> pass rate improved (...)``,
``<id> <metric> <base> -> <cand>``). A delta of 0 is neither; deltas are
rounded to 9 decimal places first, so float noise is 0. Neutral metrics are
reported, never judged; a move no larger than the metric's registered
threshold is ``within_threshold``, neither.

Beyond the seed: with ``min_cases``, a benchmark whose base or candidate run
has fewer cases is *inconclusive*: its pass rate is neither a regression nor
an improvement (metrics are still judged). When both runs carry case
results, the cases that flipped pass -> fail (and fail -> pass) are listed;
they inform, the pass rate already judges.

Numbers in messages: at most 4 decimal places, trailing zeros and point
trimmed, never ``-0`` (2/3 -> ``0.6667``, 1.0 -> ``1``), the same rule as
``[Eval] summary`` lines. JSON output keeps full values.

The statistical gate (``--stat``: intervals, paired comparisons, a margin)
is ``evals.core.gate_stat``; it starts from this verdict.

Pure: no I/O, no clock; same inputs give the same verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from core.errors import CoreError, NotFound
from evals.core.formats_types import BaselineSnapshot, CaseResult, RunSummary
from evals.core.metric_registry import MetricDirection, direction, threshold
from evals.core.metrics import format_metric
from evals.core.runs import latest_completed_runs
from evals.core.store import InvalidCounts, StoreContents, StoreKind

if TYPE_CHECKING:
    from evals.core.gate_budgets import BudgetReport

DELTA_PLACES = 9
DEFAULT_SNAPSHOT_ID = "required-main"


class BaselineNotFound(NotFound):
    code = "baseline_not_found"


class BaselineInvalid(CoreError):
    code = "baseline_invalid"


class BaselineSource(StrEnum):
    BASE = "base"
    CANDIDATE = "candidate"


class DeltaOutcome(StrEnum):
    REGRESSION = "regression"
    IMPROVEMENT = "improvement"
    UNCHANGED = "unchanged"
    NEUTRAL = "neutral"
    WITHIN_THRESHOLD = "within_threshold"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True, slots=True)
class MetricDelta:
    name: str
    base: float
    candidate: float
    delta: float
    direction: MetricDirection
    outcome: DeltaOutcome


@dataclass(frozen=True, slots=True)
class BenchmarkDelta:
    """One benchmark present on both sides; messages without the id prefix."""

    benchmark_id: str
    base_run_id: str
    candidate_run_id: str
    base_pass_rate: float
    candidate_pass_rate: float
    pass_rate_delta: float
    pass_rate_outcome: DeltaOutcome
    metric_deltas: tuple[MetricDelta, ...]
    regressions: tuple[str, ...]
    improvements: tuple[str, ...]
    base_cases: int | None
    candidate_cases: int
    cases_flipped_to_fail: tuple[str, ...] = ()
    cases_flipped_to_pass: tuple[str, ...] = ()

    @property
    def inconclusive(self) -> bool:
        return self.pass_rate_outcome is DeltaOutcome.INCONCLUSIVE


@dataclass(frozen=True, slots=True)
class SnapshotRef:
    snapshot_id: str
    created_at: str
    source_root_dir: str
    resolved_from: BaselineSource


@dataclass(frozen=True, slots=True)
class FlippedCase:
    benchmark_id: str
    case_id: str
    to_passed: bool


@dataclass(frozen=True, slots=True)
class GateVerdict:
    """The gate's decision and everything needed to explain it.

    ``invalid_base`` is ``None`` in snapshot mode (only the base store's
    baselines are read there).
    """

    passed: bool
    base_root: str
    candidate_root: str
    snapshot: SnapshotRef | None
    missing_candidate_benchmarks: tuple[str, ...]
    invalid_base: InvalidCounts | None
    invalid_candidate: InvalidCounts
    regressions: tuple[str, ...]
    improvements: tuple[str, ...]
    inconclusive: tuple[str, ...]
    deltas: tuple[BenchmarkDelta, ...]
    min_cases: int | None = None
    # Cost and latency budgets, when asked (``evals.core.gate_budgets``).
    budgets: BudgetReport | None = None

    @property
    def compared_benchmarks(self) -> int:
        return len(self.deltas)

    @property
    def baseline_resolved_from(self) -> BaselineSource | None:
        return None if self.snapshot is None else self.snapshot.resolved_from

    @property
    def flipped_cases(self) -> tuple[FlippedCase, ...]:
        return tuple(
            FlippedCase(delta.benchmark_id, case_id, to_passed)
            for delta in self.deltas
            for to_passed, case_ids in (
                (False, delta.cases_flipped_to_fail),
                (True, delta.cases_flipped_to_pass),
            )
            for case_id in case_ids
        )


@dataclass(frozen=True, slots=True)
class _BaseEntry:
    run_id: str
    pass_rate: float
    metrics: Mapping[str, float] | None
    total_cases: int | None
    case_results: tuple[CaseResult, ...] | None


def format_number(value: float) -> str:
    """A number as written in gate messages (see the module docstring): the
    harness's metric format, so a summary line and a gate line agree."""
    return format_metric(value)


def invalid_messages(side: str, counts: InvalidCounts) -> list[str]:
    """The regressions a store's invalid artifacts stand for (rule 1)."""
    lines = (
        (counts.benchmarks, "invalid benchmark manifest(s)"),
        (counts.runs, "invalid run summary file(s)"),
        (counts.shadows, "invalid shadow record(s)"),
        (counts.baselines, "invalid baseline snapshot file(s)"),
    )
    return [f"{side} store has {count} {what}" for count, what in lines if count > 0]


def resolve_snapshot(
    snapshot_id: str, *, base: StoreContents, candidate: StoreContents
) -> tuple[BaselineSnapshot, BaselineSource]:
    """The named snapshot: from the base store's valid snapshots, else from
    the candidate's (an invalid base copy is as good as none).

    Within a store, ``baselines/<id>.json`` wins over another file carrying
    the same snapshotId. Raises ``BaselineNotFound`` when neither store has
    a valid one.
    """
    expected_path = f"{StoreKind.BASELINES.value}/{snapshot_id}.json"
    for source, store in (
        (BaselineSource.BASE, base),
        (BaselineSource.CANDIDATE, candidate),
    ):
        matches = [s for s in store.baselines if s.item.snapshot_id == snapshot_id]
        if matches:
            preferred = [s for s in matches if s.path == expected_path]
            return (preferred or matches)[0].item, source
    raise BaselineNotFound(
        f"benchmark baseline snapshot not found: {snapshot_id}",
        details={"snapshotId": snapshot_id},
    )


def _flips(
    base: tuple[CaseResult, ...] | None, candidate: tuple[CaseResult, ...] | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if base is None or candidate is None:
        return (), ()
    before = {result.case_id: result.passed for result in base}
    to_fail: list[str] = []
    to_pass: list[str] = []
    for result in candidate:
        was = before.get(result.case_id)
        if was is True and not result.passed:
            to_fail.append(result.case_id)
        elif was is False and result.passed:
            to_pass.append(result.case_id)
    return tuple(sorted(to_fail)), tuple(sorted(to_pass))


def _compare(
    benchmark_id: str,
    base: _BaseEntry,
    run: RunSummary,
    *,
    min_cases: int | None,
    overrides: Mapping[str, MetricDirection] | None,
) -> tuple[BenchmarkDelta, list[str], list[str]]:
    """The delta of one benchmark, and its gate-level regressions/improvements."""
    regressions: list[str] = []
    improvements: list[str] = []
    gate_regressions: list[str] = []
    gate_improvements: list[str] = []
    candidate_rate = run.pass_rate
    rate_delta = round(candidate_rate - base.pass_rate, DELTA_PLACES)
    shown = f"{format_number(base.pass_rate)} -> {format_number(candidate_rate)}"
    too_few = min_cases is not None and (
        run.total_cases < min_cases
        or (base.total_cases is not None and base.total_cases < min_cases)
    )
    if too_few:
        rate_outcome = DeltaOutcome.INCONCLUSIVE
    elif rate_delta < 0:
        rate_outcome = DeltaOutcome.REGRESSION
        regressions.append(f"passRate {shown}")
        gate_regressions.append(f"{benchmark_id} pass rate regressed ({shown})")
    elif rate_delta > 0:
        rate_outcome = DeltaOutcome.IMPROVEMENT
        improvements.append(f"passRate {shown}")
        gate_improvements.append(f"{benchmark_id} pass rate improved ({shown})")
    else:
        rate_outcome = DeltaOutcome.UNCHANGED
    metric_deltas: list[MetricDelta] = []
    base_metrics = base.metrics or {}
    candidate_metrics = run.metrics or {}
    for name in sorted(base_metrics.keys() & candidate_metrics.keys()):
        before, after = base_metrics[name], candidate_metrics[name]
        delta = round(after - before, DELTA_PLACES)
        way = direction(name, overrides=overrides)
        if delta == 0:
            outcome = DeltaOutcome.UNCHANGED
        elif way is MetricDirection.NEUTRAL:
            outcome = DeltaOutcome.NEUTRAL
        elif abs(delta) <= threshold(name):
            outcome = DeltaOutcome.WITHIN_THRESHOLD
        elif (delta > 0) == (way is MetricDirection.HIGHER_IS_BETTER):
            outcome = DeltaOutcome.IMPROVEMENT
            improvements.append(
                f"{name} {format_number(before)} -> {format_number(after)}"
            )
            gate_improvements.append(f"{benchmark_id} {improvements[-1]}")
        else:
            outcome = DeltaOutcome.REGRESSION
            regressions.append(
                f"{name} {format_number(before)} -> {format_number(after)}"
            )
            gate_regressions.append(f"{benchmark_id} {regressions[-1]}")
        metric_deltas.append(MetricDelta(name, before, after, delta, way, outcome))
    to_fail, to_pass = _flips(base.case_results, run.case_results)
    result = BenchmarkDelta(
        benchmark_id=benchmark_id,
        base_run_id=base.run_id,
        candidate_run_id=run.run_id,
        base_pass_rate=base.pass_rate,
        candidate_pass_rate=candidate_rate,
        pass_rate_delta=rate_delta,
        pass_rate_outcome=rate_outcome,
        metric_deltas=tuple(metric_deltas),
        regressions=tuple(regressions),
        improvements=tuple(improvements),
        base_cases=base.total_cases,
        candidate_cases=run.total_cases,
        cases_flipped_to_fail=to_fail,
        cases_flipped_to_pass=to_pass,
    )
    return result, gate_regressions, gate_improvements


def evaluate_gate(
    *,
    base: StoreContents,
    candidate: StoreContents,
    snapshot_id: str | None = None,
    min_cases: int | None = None,
    overrides: Mapping[str, MetricDirection] | None = None,
) -> GateVerdict:
    """Decide the gate for ``candidate`` against ``base`` (module docstring).

    ``snapshot_id`` selects snapshot mode; ``min_cases`` enables
    inconclusive benchmarks; ``overrides`` are metric directions from
    configuration. Raises ``BaselineNotFound`` when the snapshot is valid in
    neither store.
    """
    snapshot: SnapshotRef | None = None
    bases: dict[str, _BaseEntry] = {}
    if snapshot_id is None:
        for benchmark_id, run in latest_completed_runs(base.run_list()).items():
            bases[benchmark_id] = _BaseEntry(
                run.run_id,
                run.pass_rate,
                run.metrics,
                run.total_cases,
                run.case_results,
            )
        invalid_base: InvalidCounts | None = base.invalid_counts
    else:
        found, source = resolve_snapshot(snapshot_id, base=base, candidate=candidate)
        holder = base if source is BaselineSource.BASE else candidate
        snapshot = SnapshotRef(
            found.snapshot_id, found.created_at, found.source_root_dir, source
        )
        runs_by_id = {
            (stored.item.benchmark_id, stored.item.run_id): stored.item
            for stored in holder.runs
        }
        for entry in sorted(found.benchmarks, key=lambda b: b.benchmark_id):
            origin = runs_by_id.get((entry.benchmark_id, entry.run_id))
            bases[entry.benchmark_id] = _BaseEntry(
                entry.run_id,
                entry.pass_rate,
                entry.metrics,
                entry.total_cases,
                origin.case_results if origin is not None else None,
            )
        invalid_base = None

    regressions = (
        invalid_messages("base", invalid_base) if invalid_base is not None else []
    )
    regressions += invalid_messages("candidate", candidate.invalid_counts)
    improvements: list[str] = []
    latest = latest_completed_runs(candidate.run_list())
    missing = tuple(sorted(b for b in bases if b not in latest))
    regressions.extend(
        f"candidate is missing latest completed benchmark run for {benchmark_id}"
        for benchmark_id in missing
    )
    deltas: list[BenchmarkDelta] = []
    inconclusive: list[str] = []
    for benchmark_id in sorted(bases):
        candidate_run = latest.get(benchmark_id)
        if candidate_run is None:
            continue
        delta, worse, better = _compare(
            benchmark_id,
            bases[benchmark_id],
            candidate_run,
            min_cases=min_cases,
            overrides=overrides,
        )
        regressions.extend(worse)
        improvements.extend(better)
        if delta.inconclusive:
            inconclusive.append(benchmark_id)
        deltas.append(delta)
    return GateVerdict(
        passed=not regressions,
        base_root=base.root,
        candidate_root=candidate.root,
        snapshot=snapshot,
        missing_candidate_benchmarks=missing,
        invalid_base=invalid_base,
        invalid_candidate=candidate.invalid_counts,
        regressions=tuple(regressions),
        improvements=tuple(improvements),
        inconclusive=tuple(inconclusive),
        deltas=tuple(deltas),
        min_cases=min_cases,
    )
