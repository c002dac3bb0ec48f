"""The scenario artifact (EV-C4) on disk and as the lifecycle records it.

The document itself is ``evals.core.outcomes.scenario_document``'s;
``write_artifact`` puts it under the run's bundle, ``ArtifactWriter`` does
that for many scenarios at once, ``case_record`` hands it to the recorder,
``case_outcome`` reads a stored case back into its ``ScenarioOutcome``.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Any

from evals.core.bundles import (
    json_text,
    scenario_artifact_path,
    write_json_atomic,
    write_text_atomic,
)
from evals.core.outcomes import outcome_of
from evals.core.suite_types import (
    Scenario,
    ScenarioOutcome,
)
from evals.models import CaseResult, Run
from evals.services.runs.executors import CaseRecord
from evals.services.runs.recording import CaseRecorder

# Creating a file waits on the file system, not on Python: a few threads
# overlap those waits with the next scenarios' work.
WRITER_THREADS = 4
WRITER_BATCH = 25


def write_artifact(run: Run, scenario: Scenario, artifact: dict[str, Any]) -> None:
    # Not fsynced one by one: the case row committed beside it holds the same
    # document, and the run's finish syncs them all before summary.json.
    write_json_atomic(
        Path(run.artifacts_dir) / scenario_artifact_path(scenario.scenario_id),
        artifact,
        durable=False,
    )


def case_record(scenario: Scenario, artifact: dict[str, Any]) -> CaseRecord:
    """The stored case of a scenario whose artifact is written."""
    return CaseRecord(
        case_id=scenario.scenario_id,
        passed=artifact["pass"],
        error=artifact["error"] or "",
        latency_ms=artifact["latencyMs"],
        stimulus_kind=scenario.stimulus.kind.value,
        affordance=scenario.stimulus.action_affordance.value,
        tags=tuple(scenario.tags),
        details=artifact,
    )


def case_outcome(case: CaseResult) -> ScenarioOutcome:
    """The outcome a stored scenario case stands for."""
    return outcome_of(
        case_id=case.case_id,
        affordance=case.affordance,
        stimulus_kind=case.stimulus_kind,
        tags=case.tags,
        details=case.details,
    )


class ArtifactWriter:
    """Writes the artifacts of a chunk's scenarios on a few threads and hands
    each case to ``recorder`` only once its file is written, in the order
    the scenarios were added (a case row never exists without its file).

    Use as a context manager: leaving it waits for every write; after an
    error nothing more is handed to the recorder (the chunk is redone).
    """

    def __init__(self, run: Run, recorder: CaseRecorder) -> None:
        self.run = run
        self.recorder = recorder
        self._run_dir = Path(run.artifacts_dir)
        self._pool = ThreadPoolExecutor(
            max_workers=WRITER_THREADS, thread_name_prefix="eval-artifacts"
        )
        self._pending: list[tuple[Future[None], CaseRecord]] = []

    def add(self, scenario: Scenario, artifact: dict[str, Any]) -> None:
        # Serialized here: only the file system calls, which release the
        # GIL, run on the threads.
        future = self._pool.submit(
            write_text_atomic,
            self._run_dir / scenario_artifact_path(scenario.scenario_id),
            json_text(artifact),
            durable=False,
        )
        self._pending.append((future, case_record(scenario, artifact)))
        if len(self._pending) >= WRITER_BATCH:
            self.drain()

    def drain(self) -> None:
        """Wait for the pending writes and hand their cases to the recorder."""
        pending, self._pending = self._pending, []
        for future, record in pending:
            future.result()
            self.recorder.add(record)

    def __enter__(self) -> ArtifactWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if exc_type is None:
                self.drain()
        finally:
            self._pool.shutdown(wait=True)
