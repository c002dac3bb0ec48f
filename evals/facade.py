"""The run lifecycle's one public face to other apps (gridworld episode batches).

Another app reaches the run lifecycle (``evals.services.runs``) only through
this module: frozen dataclasses in, frozen dataclasses out, no ``Run`` or
``CaseResult`` row handed over. What it offers:

- ``register_run_kind(kind, executor)``: plug a ``RunKindExecutor`` in for a
  benchmark kind, from the app's ``AppConfig.ready()`` (explicit code, no
  dotted path). The facade adapts it to the lifecycle's ``CaseExecutor``.
- ``run_create(RunCreate(...)) -> RunInfo``: upsert the kind's benchmark and
  record a ``queued`` run (inside the caller's transaction; the chord is sent
  after commit when ``schedule``).
- ``run_execute(run_pk, on_progress=) -> RunInfo``: every chunk in this
  process, then finalize (CLI ``--wait``, demo, bench).
- ``run_info(run_pk) -> RunInfo``: a run as it is now.
- ``run_scores(run_id, max_cases=) -> RunScores | None``: a run with its
  first recorded case verdicts by case id (the score export of traces).
- ``case_texts(run_id, case_id) -> CaseTexts | None``: what the model of a
  harness case was shown and what it answered, from its scenario artifact
  (the traces app shows them beside the case's span; they are not stored
  twice).
- ``case_checks(refs) -> {(run_id, case_id): CaseCheck}``: the automatic
  verdicts of cases (passed, goal grounded, hallucination category, a
  model judge's label) that the reviews app sets beside people's scores.
- ``run_human_metrics_set(run_id, values)``: people's scores of a run's
  cases (metric ``human.<name>`` -> case id -> value) stored as the run's
  ``human.`` metrics with their intervals, replacing the old ones
  (``evals.services.human_metrics``).
- ``idempotency_of`` / ``holder_of`` / ``IDEMPOTENCY_HEADER`` and
  ``run_start_once(idempotency, start) -> (RunInfo, replayed)``: an
  ``Idempotency-Key`` retry answers the first run.

An executor sees a run as ``RunInfo``, the stored cases of a run as
``StoredCase`` and hands finished cases as ``CaseRecord`` to a ``CaseSink``;
``verdict`` returns a ``KindVerdict`` naming the cases in report order by id.
What the lifecycle guarantees an executor is in ``evals.services.runs``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from core.errors import SchemaInvalid, SchemaProblem
from evals.core.repeats import check_repeats
from evals.core.scenario_artifact import ScenarioArtifact, is_scenario_artifact
from evals.core.stats_input import MAX_REPEATS, StatInputError
from evals.models import CaseResult, Run
from evals.services.human_metrics import HumanMetricsInvalid, run_human_metrics_set
from evals.services.runs import idempotency as _idempotency
from evals.services.runs import lifecycle as _lifecycle
from evals.services.runs.executors import (
    CaseRecord,
    RunBroken,
    RunVerdict,
    executor_register,
)
from evals.services.runs.idempotency import Idempotency
from evals.services.runs.recording import METRIC_INPUTS_KEY, ProgressCallback

__all__ = [
    "IDEMPOTENCY_HEADER",
    "MAX_REPEATS",
    "CaseRecord",
    "CaseCheck",
    "CaseSink",
    "CaseTexts",
    "CaseVerdict",
    "HumanMetricsInvalid",
    "Idempotency",
    "KindVerdict",
    "ProgressCallback",
    "RunBroken",
    "RunCreate",
    "RunInfo",
    "RunKindExecutor",
    "RunScores",
    "StoredCase",
    "case_checks",
    "case_texts",
    "holder_of",
    "idempotency_of",
    "register_run_kind",
    "repeats_parse",
    "run_create",
    "run_execute",
    "run_human_metrics_set",
    "run_info",
    "run_scores",
    "run_start_once",
]

IDEMPOTENCY_HEADER = _idempotency.HEADER
holder_of = _idempotency.holder_of
idempotency_of = _idempotency.idempotency_of


@dataclass(frozen=True, slots=True)
class RunInfo:
    """A run as an executor or another app sees it."""

    pk: int
    run_id: str
    benchmark_id: str
    kind: str
    status: str
    total_cases: int
    progress_done: int
    passed_cases: int
    metrics: Mapping[str, Any]
    verdict_passed: bool | None
    failed_properties: tuple[str, ...]
    error: str
    started_at: datetime
    completed_at: datetime | None
    # The run's config as stored (``repeats`` when the run has them).
    config: Mapping[str, Any] = field(default_factory=dict)

    @property
    def pass_rate(self) -> float:
        return self.passed_cases / self.total_cases if self.total_cases else 0.0

    @classmethod
    def of(cls, run: Run) -> RunInfo:
        return cls(
            pk=run.pk,
            run_id=run.run_id,
            benchmark_id=run.benchmark.benchmark_id,
            kind=run.benchmark.kind,
            status=str(run.status),
            total_cases=run.total_cases,
            progress_done=run.progress_done,
            passed_cases=run.passed_cases,
            metrics=dict(run.metrics or {}),
            verdict_passed=run.verdict_passed,
            failed_properties=tuple(run.failed_properties or ()),
            error=run.error,
            started_at=run.started_at,
            completed_at=run.completed_at,
            config=dict(run.config or {}),
        )


@dataclass(frozen=True, slots=True)
class StoredCase:
    """A recorded case of a run: ``details`` without ``metric_inputs``,
    which are apart."""

    case_id: str
    passed: bool
    latency_ms: float | None
    details: Mapping[str, Any]
    metric_inputs: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class KindVerdict:
    """What an executor concludes from a run's stored cases: ``case_order``
    names them (by case id) in report order."""

    metrics: Mapping[str, float | int]
    passed: bool
    failed_properties: tuple[str, ...]
    errored_cases: int
    case_order: tuple[str, ...]
    report: Any = None


@dataclass(frozen=True, slots=True)
class RunCreate:
    """A run to record for a benchmark of ``kind`` (upserted with ``title``)."""

    kind: str
    benchmark_id: str
    title: str
    run_id: str
    started_at: datetime
    case_ids: tuple[str, ...]
    config: Mapping[str, Any]
    user: Any = None
    schedule: bool = True
    queue: str | None = None
    idempotency: Idempotency | None = None


class CaseSink(Protocol):
    """Where an executor hands finished cases (the lifecycle's recorder)."""

    def add(self, record: CaseRecord) -> None: ...

    def record_now(self, records: Sequence[CaseRecord]) -> int: ...


class RunKindExecutor(Protocol):
    """What a benchmark kind supplies (see ``evals.services.runs``)."""

    def case_ids(self, run: RunInfo) -> Sequence[str]: ...

    def prepare(self, run: RunInfo) -> Any: ...

    def started(self, run: RunInfo) -> None: ...

    def execute(
        self, run: RunInfo, context: Any, case_ids: Sequence[str], sink: CaseSink
    ) -> None: ...

    def verdict(
        self, run: RunInfo, cases: Sequence[StoredCase], *, missing: int, failed: bool
    ) -> KindVerdict: ...

    def finished(self, run: RunInfo, verdict: KindVerdict) -> None: ...


def _stored(case: CaseResult) -> StoredCase:
    details = dict(case.details or {})
    inputs = details.pop(METRIC_INPUTS_KEY, {})
    return StoredCase(case.case_id, case.passed, case.latency_ms, details, inputs)


@dataclass(frozen=True, slots=True)
class _Adapter:
    """A ``RunKindExecutor`` as the lifecycle's ``CaseExecutor``."""

    kind_executor: RunKindExecutor

    def case_ids(self, run: Run) -> Sequence[str]:
        return self.kind_executor.case_ids(RunInfo.of(run))

    def prepare(self, run: Run) -> Any:
        return self.kind_executor.prepare(RunInfo.of(run))

    def started(self, run: Run) -> None:
        self.kind_executor.started(RunInfo.of(run))

    def execute(
        self, run: Run, context: Any, case_ids: Sequence[str], recorder: Any
    ) -> None:
        self.kind_executor.execute(RunInfo.of(run), context, case_ids, recorder)

    def verdict(
        self, run: Run, cases: Sequence[CaseResult], *, missing: int, failed: bool
    ) -> RunVerdict:
        verdict = self.kind_executor.verdict(
            RunInfo.of(run), [_stored(c) for c in cases], missing=missing, failed=failed
        )
        by_id = {c.case_id: c for c in cases}
        return RunVerdict(
            metrics=verdict.metrics,
            passed=verdict.passed,
            failed_properties=verdict.failed_properties,
            errored_cases=verdict.errored_cases,
            cases=[by_id[case_id] for case_id in verdict.case_order],
            report=verdict,
        )

    def finished(self, run: Run, verdict: RunVerdict) -> None:
        self.kind_executor.finished(RunInfo.of(run), verdict.report)


def register_run_kind(kind: str, executor: RunKindExecutor) -> None:
    """Run benchmarks of ``kind`` with ``executor`` (call from ``ready()``)."""
    executor_register(kind, _Adapter(executor))


def run_create(request: RunCreate) -> RunInfo:
    """Upsert the benchmark and record a ``queued`` run (see ``RunCreate``);
    call it inside the transaction that writes the kind's own rows."""
    benchmark = _lifecycle.benchmark_upsert(
        benchmark_id=request.benchmark_id,
        kind=request.kind,
        title=request.title,
        case_count=len(request.case_ids),
    )
    run = _lifecycle.run_create(
        benchmark=benchmark,
        run_id=request.run_id,
        started_at=request.started_at,
        total_cases=len(request.case_ids),
        config=dict(request.config),
        user=request.user,
        schedule=request.schedule,
        queue=request.queue,
        case_ids=list(request.case_ids),
        idempotency=request.idempotency,
    )
    return RunInfo.of(run)


def run_info(run_pk: int) -> RunInfo:
    return RunInfo.of(Run.objects.select_related("benchmark").get(pk=run_pk))


@dataclass(frozen=True, slots=True)
class CaseVerdict:
    """One recorded case: passed or not, and the error it ended with."""

    case_id: str
    passed: bool
    error: str


@dataclass(frozen=True, slots=True)
class RunScores:
    """A run with its first ``len(cases)`` of ``cases_recorded`` recorded
    cases, by case id."""

    run: RunInfo
    cases: tuple[CaseVerdict, ...]
    cases_recorded: int


def run_scores(run_id: str, *, max_cases: int) -> RunScores | None:
    """The run ``run_id`` and its first ``max_cases`` case verdicts by case
    id (three queries); None when there is no such run."""
    run = Run.objects.select_related("benchmark").filter(run_id=run_id).first()
    if run is None:
        return None
    results = CaseResult.objects.filter(run=run).order_by("case_id")
    rows = results.values_list("case_id", "passed", "error")[: max(max_cases, 0)]
    return RunScores(
        run=RunInfo.of(run),
        cases=tuple(CaseVerdict(*row) for row in rows),
        cases_recorded=results.count(),
    )


def run_execute(run_pk: int, *, on_progress: ProgressCallback | None = None) -> RunInfo:
    """Run every case of the run in this process, then finalize it."""
    run = Run.objects.select_related("benchmark").get(pk=run_pk)
    return RunInfo.of(_lifecycle.run_execute(run=run, on_progress=on_progress))


def run_start_once(
    idempotency: Idempotency | None, start: Callable[[], RunInfo]
) -> tuple[RunInfo, bool]:
    """``(run, replayed)``: the first run of this ``Idempotency-Key`` when
    there is one, else the run ``start`` records (see
    ``evals.services.runs.idempotency``)."""
    if idempotency is None:
        return start(), False
    run, replayed = _idempotency.run_start_once(
        idempotency,
        lambda: Run.objects.select_related("benchmark").get(pk=start().pk),
    )
    return RunInfo.of(run), replayed


def repeats_parse(value: object) -> int:
    """A run's repeats K (a whole number 1..``MAX_REPEATS``), for a kind
    that takes them; ``SchemaInvalid`` naming ``repeats`` otherwise."""
    try:
        return check_repeats(value)
    except StatInputError as exc:
        raise SchemaInvalid(
            exc.message,
            problems=[SchemaProblem("repeats", "invalid", exc.message)],
        ) from None


@dataclass(frozen=True, slots=True)
class CaseTexts:
    """A harness case's model input (the situation frame) and raw output."""

    prompt: str
    output: str


def case_texts(run_id: str, case_id: str) -> CaseTexts | None:
    """The frame text and raw model output of a case's scenario artifact;
    None when the case is not stored or holds no scenario artifact."""
    case = (
        CaseResult.objects.filter(run__run_id=run_id, case_id=case_id)
        .only("details")
        .first()
    )
    if case is None or not is_scenario_artifact(case.details):
        return None
    artifact = ScenarioArtifact.from_wire(case.details)
    return CaseTexts(
        prompt=artifact.frame.text if artifact.frame is not None else "",
        output=artifact.raw_output or "",
    )


@dataclass(frozen=True, slots=True)
class CaseCheck:
    """The automatic verdicts of one case: passed or not; for a scenario
    result, whether its goal was grounded (None: no goal) and the
    hallucination category found (None: none); a model judge's label and
    whether it passed, where the case's details carry one under
    ``judge`` (``{"label": ..., "passed": ...}``)."""

    passed: bool
    grounded: bool | None = None
    hallucination: str | None = None
    judge_label: str | None = None
    judge_passed: bool | None = None


def _case_check(passed: bool, details: Any) -> CaseCheck:
    doc = details if isinstance(details, Mapping) else {}
    judge = doc.get("judge")
    judge = judge if isinstance(judge, Mapping) else {}
    label, judge_passed = judge.get("label"), judge.get("passed")
    if not is_scenario_artifact(doc):
        return CaseCheck(
            passed=passed,
            judge_label=str(label) if label else None,
            judge_passed=judge_passed if isinstance(judge_passed, bool) else None,
        )
    artifact = ScenarioArtifact.from_wire(doc)
    return CaseCheck(
        passed=passed,
        grounded=artifact.grounding.passed,
        hallucination=artifact.hallucination or None,
        judge_label=str(label) if label else None,
        judge_passed=judge_passed if isinstance(judge_passed, bool) else None,
    )


def case_checks(refs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], CaseCheck]:
    """The automatic verdicts of the cases ``(run_id, case_id)`` that exist
    (one query per 500 asked)."""
    wanted = sorted(set(refs))
    found: dict[tuple[str, str], CaseCheck] = {}
    for start in range(0, len(wanted), 500):
        chunk = set(wanted[start : start + 500])
        rows = CaseResult.objects.filter(
            run__run_id__in={run_id for run_id, _ in chunk},
            case_id__in={case_id for _, case_id in chunk},
        ).values_list("run__run_id", "case_id", "passed", "details")
        for run_id, case_id, passed, details in rows:
            if (run_id, case_id) in chunk:
                found[(run_id, case_id)] = _case_check(passed, details)
    return found
