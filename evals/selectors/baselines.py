"""Reads of baseline snapshots and shadow recall records.

Lists that can grow without bound are capped here or paginated by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import (
    QuerySet,
)

from core.errors import NotFound, SchemaInvalid
from evals.core.baselines import validate_baseline_snapshot
from evals.core.formats_types import BaselineBenchmark
from evals.core.gate import DEFAULT_SNAPSHOT_ID
from evals.models import (
    BaselineSnapshot,
    ShadowRecord,
)

# Snapshots read to find "the baseline of a benchmark": the CI gate's
# required-main plus the newest ones. A benchmark only in older snapshots
# shows no baseline on the dashboard; the baseline pages still list them all.
RECENT_SNAPSHOTS = 20


@dataclass(frozen=True, slots=True)
class SnapshotEntry:
    """A benchmark's entry in a stored snapshot, and which snapshot."""

    snapshot_id: str
    created_at: str
    entry: BaselineBenchmark


def snapshot_get(*, snapshot_id: str) -> BaselineSnapshot:
    """A stored baseline snapshot; ``NotFound`` if absent."""
    row = BaselineSnapshot.objects.filter(snapshot_id=snapshot_id).first()
    if row is None:
        raise NotFound(
            f"benchmark baseline snapshot not found: {snapshot_id}",
            details={"snapshotId": snapshot_id},
        )
    return row


def snapshot_ids(limit: int = 200) -> list[str]:
    return list(
        BaselineSnapshot.objects.order_by("-created_at").values_list(
            "snapshot_id", flat=True
        )[:limit]
    )


def snapshot_list() -> QuerySet[BaselineSnapshot]:
    return BaselineSnapshot.objects.select_related("created_by").order_by(
        "-created_at", "-pk"
    )


def baselines_by_benchmark() -> dict[str, SnapshotEntry]:
    """Each benchmark's baseline: its entry in ``required-main`` (what the CI
    gate uses) if that snapshot covers it, else in the newest snapshot that
    does, among the ``RECENT_SNAPSHOTS`` newest (two queries)."""
    rows = list(
        BaselineSnapshot.objects.order_by("-created_at", "-pk")[:RECENT_SNAPSHOTS]
    )
    if not any(row.snapshot_id == DEFAULT_SNAPSHOT_ID for row in rows):
        rows = (
            list(BaselineSnapshot.objects.filter(snapshot_id=DEFAULT_SNAPSHOT_ID))
            + rows
        )
    rows.sort(key=lambda row: row.snapshot_id != DEFAULT_SNAPSHOT_ID)
    out: dict[str, SnapshotEntry] = {}
    for row in rows:
        try:
            document = validate_baseline_snapshot(row.document)
        except SchemaInvalid:
            continue
        for entry in document.benchmarks:
            out.setdefault(
                entry.benchmark_id,
                SnapshotEntry(document.snapshot_id, document.created_at, entry),
            )
    return out


def shadow_record_list(
    *, day: str | None = None, session_key: str | None = None
) -> QuerySet[ShadowRecord]:
    """Shadow records, newest first; ``day`` is ``YYYY-MM-DD``."""
    records = ShadowRecord.objects.all()
    if day:
        records = records.filter(day=day)
    if session_key:
        records = records.filter(document__sessionKey=session_key)
    return records.order_by("-recorded_at", "-pk")


def shadow_record_get(*, trace_id: str) -> ShadowRecord:
    """One shadow record; ``NotFound`` (with ``traceId``) when there is none."""
    record = ShadowRecord.objects.filter(trace_id=trace_id).first()
    if record is None:
        raise NotFound(f"no shadow record {trace_id!r}", details={"traceId": trace_id})
    return record
