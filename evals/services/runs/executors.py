"""What a benchmark kind gives the run lifecycle, and the registry by kind.

See ``evals.services.runs`` for how an executor plugs in and what the
lifecycle guarantees it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from django.utils.module_loading import import_string

from core.errors import CoreError
from evals.models import CaseResult, Run

if TYPE_CHECKING:
    from evals.services.runs.recording import CaseRecorder


class RunBroken(CoreError):
    """The run cannot go on (its benchmark changed or is gone, its model or
    environment cannot be built); raised by ``prepare``, fails the run."""

    code = "run_broken"


@dataclass(frozen=True, slots=True)
class CaseRecord:
    """One finished case, as an executor hands it to the recorder.

    ``details`` is stored as the case's document (the harness: the scenario
    artifact); ``metric_inputs``, when given, is stored beside it under
    ``details["metricInputs"]`` for the kind's ``verdict``. ``details_json``,
    when given, is ``details`` already encoded as JSON text (the harness
    hands over its artifact file's text): stored as it is instead of being
    encoded again (not with ``metric_inputs``, which change the document).
    """

    case_id: str
    passed: bool
    error: str = ""
    latency_ms: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    metric_inputs: Mapping[str, Any] = field(default_factory=dict)
    stimulus_kind: str = ""
    affordance: str = ""
    tags: tuple[str, ...] = ()
    details_json: str = ""


@dataclass(frozen=True, slots=True)
class RunVerdict:
    """What an executor concludes from a run's stored cases.

    ``metrics`` is the wire map stored on ``Run.metrics`` and in the run
    summary; ``cases`` are the run's cases in report order; ``report`` is
    anything the executor's ``finished`` hook wants back.
    """

    metrics: Mapping[str, float | int]
    passed: bool
    failed_properties: tuple[str, ...]
    errored_cases: int
    cases: Sequence[CaseResult]
    report: Any = None
    # Stored on ``Run.uncertainty`` (not in the run summary): each figure
    # with its interval (``evals.core.run_uncertainty``); empty for kinds
    # that compute none.
    uncertainty: Mapping[str, Any] = field(default_factory=dict)


class CaseExecutor(Protocol):
    """What a benchmark kind provides to the lifecycle (see the module doc)."""

    def case_ids(self, run: Run) -> Sequence[str]: ...

    def prepare(self, run: Run) -> Any: ...

    def started(self, run: Run) -> None: ...

    def execute(
        self,
        run: Run,
        context: Any,
        case_ids: Sequence[str],
        recorder: CaseRecorder,
    ) -> None: ...

    def verdict(
        self, run: Run, cases: Sequence[CaseResult], *, missing: int, failed: bool
    ) -> RunVerdict: ...

    def finished(self, run: Run, verdict: RunVerdict) -> None: ...


class BaseCaseExecutor:
    """Defaults for the optional hooks: no shared context, nothing logged when
    the run starts or finishes."""

    def prepare(self, run: Run) -> Any:
        return None

    def started(self, run: Run) -> None:
        return None

    def finished(self, run: Run, verdict: RunVerdict) -> None:
        return None


_EXECUTORS: dict[str, CaseExecutor | str] = {}


def executor_register(kind: str, executor: CaseExecutor | str) -> None:
    """Register the executor of benchmark ``kind``: an instance, or the dotted
    path of a zero-argument class or factory (resolved on first use)."""
    _EXECUTORS[str(kind)] = executor


def executor_for(kind: str) -> CaseExecutor:
    """The executor of benchmark ``kind``; ``CoreError`` (``no_executor``)
    when that kind of benchmark cannot be executed (posted packs)."""
    entry = _EXECUTORS.get(str(kind))
    if entry is None:
        raise CoreError(
            f"benchmarks of kind {kind!r} are not executed here",
            code="no_executor",
        )
    if isinstance(entry, str):
        entry = import_string(entry)()
        _EXECUTORS[str(kind)] = entry
    return entry
