"""OTLP/HTTP ingestion: an export's body in, its spans stored.

``otlp_ingest`` inflates the body (gzip at most to ``TRACE_MAX_BODY_BYTES``),
decodes it with the official OTLP messages, maps every span
(``traces.core.otlp_map``: a span it refuses is counted with its reason,
the rest go on), drops content attributes unless ``TRACE_STORE_CONTENT``,
unlinks a thought id that is not the sending agent's, and stores the batch
with ``store_spans`` (priced; one transaction, so nothing is half-stored; a
resent span is a duplicate, not an error). A body that cannot be read
raises one of ``traces.core.otlp_decode``'s refusals before anything is
written. Logs ``[Traces] otlp_ingested`` with the counts. No network.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

from django.conf import settings

from stream.selectors_thoughts import thought_ids_owned
from traces.core.otlp_decode import decode_request, inflate
from traces.core.otlp_map import map_export
from traces.core.records import SpanRecord
from traces.services.spans import store_spans

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What became of an export's spans."""

    stored: int
    duplicates: int
    rejected: int
    reasons: tuple[str, ...]
    unlinked: int = 0


def otlp_ingest(
    *,
    body: bytes,
    encoding: str,
    content_encoding: str = "",
    agent_id: int | None,
) -> IngestResult:
    """Store the spans of one OTLP export sent by ``agent_id``'s key."""
    raw = inflate(body, content_encoding, limit=settings.TRACE_MAX_BODY_BYTES)
    request = decode_request(raw, encoding)
    mapped = map_export(request, store_content=settings.TRACE_STORE_CONTENT)
    records, unlinked = _own_thoughts(mapped.records, agent_id=agent_id)
    result = store_spans(records, agent_id=agent_id)
    logger.info(
        "[Traces] otlp_ingested agent=%s spans=%d stored=%d duplicates=%d "
        "rejected=%d unlinked=%d",
        agent_id,
        len(records) + mapped.rejected,
        result.stored,
        result.duplicates,
        mapped.rejected,
        unlinked,
        extra={
            "agent_id": agent_id,
            "stored": result.stored,
            "duplicates": result.duplicates,
            "rejected": mapped.rejected,
        },
    )
    return IngestResult(
        stored=result.stored,
        duplicates=result.duplicates,
        rejected=mapped.rejected,
        reasons=tuple(mapped.reasons),
        unlinked=unlinked,
    )


def _own_thoughts(
    records: list[SpanRecord], *, agent_id: int | None
) -> tuple[list[SpanRecord], int]:
    """``records`` with every thought link that is not ``agent_id``'s
    removed, and how many were."""
    named = {r.thought_ref for r in records if r.thought_ref is not None}
    if not named:
        return records, 0
    owned = (
        thought_ids_owned(agent_id=agent_id, thought_ids=named)
        if agent_id is not None
        else set()
    )
    out: list[SpanRecord] = []
    unlinked = 0
    for record in records:
        if record.thought_ref is not None and record.thought_ref not in owned:
            record = dataclasses.replace(record, thought_ref=None)
            unlinked += 1
        out.append(record)
    return out, unlinked
