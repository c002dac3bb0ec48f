"""The harness's model calls as spans: one per case, stored once per chunk.

Each case's call (the adapter's ``ModelCall``, from its ``Generation`` or
from the ``ModelUnavailable``/``ModelError`` it raised) becomes a span of
source ``harness`` linked to the run (``run_ref``) and the case
(``case_ref``: the scenario id, or ``<scenario>#<epoch>`` with repeats).
Its trace id is derived from the run id and the case id, so a chunk that is
retried stores its calls once. The prompt and the completion are not
copied into the span: the scenario artifact holds them, and the span names
it (attribute "evalsite.artifact", relative to the run's bundle). The chunk's
spans go to ``traces.facade.record_spans`` in one batch, after the chunk's
work, with no transaction of the harness open around it.
"""

from __future__ import annotations

from datetime import datetime

from evals.core.bundles import scenario_artifact_path
from stream.core.types import ModelCall
from traces.facade import (
    SOURCE_HARNESS,
    SpanRecord,
    call_ids,
    model_call_span,
    record_spans,
)


class ChunkCalls:
    """The spans of one chunk's model calls, collected, then stored."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.records: list[SpanRecord] = []

    def add(self, case_id: str, call: ModelCall | None, started_at: datetime) -> None:
        """Keep the span of case ``case_id``'s call (nothing when no model was
        called: a frame that failed before it, a script without the case)."""
        if call is None:
            return
        self.records.append(
            model_call_span(
                call,
                source=SOURCE_HARNESS,
                ids=call_ids(self.run_id, case_id),
                started_at=started_at,
                run_ref=self.run_id,
                case_ref=case_id,
                attributes={"evalsite.artifact": scenario_artifact_path(case_id)},
            )
        )

    def store(self) -> int:
        """Store the collected spans in one batch; how many were new."""
        if not self.records:
            return 0
        records, self.records = self.records, []
        return record_spans(records).stored
