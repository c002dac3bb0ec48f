"""Use cases of baseline snapshots: store an uploaded snapshot, make one
from the latest completed runs, and the snapshot's canonical bytes.

A snapshot is validated by the core (``evals.core.baselines``) before
anything is written. A document equal to the stored one is a no-op reported
as unchanged; a different one under an existing id is a ``Conflict`` (409).
Making a snapshot from the latest runs is the exception: it replaces the
snapshot of that id, because that is how a named baseline such as
``required-main`` moves forward. Needs
``BENCHMARK_BASELINE_SNAPSHOTS_ENABLED`` (``FeatureDisabled`` otherwise).
Logs ``[Eval] baseline_snapshot_saved ...``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.audit import Action, audit_record
from core.errors import Conflict
from core.scopes import BASELINES_WRITE
from evals.core.baselines import snapshot_from_runs, validate_baseline_snapshot
from evals.core.formats_types import BaselineSnapshot as SnapshotDocument
from evals.core.store import store_json_bytes
from evals.core.wire import instant, wire_timestamp
from evals.models import BaselineSnapshot
from evals.services.access import key_name, require_gate_privilege
from evals.services.benchmark_records import latest_completed_run_items, same_document
from evals.services.columns import require_storable
from evals.services.features import require_baseline_snapshots

logger = logging.getLogger(__name__)


# sourceRootDir of snapshots made from the database's runs.
DATABASE_SOURCE = "database"


@dataclass(frozen=True, slots=True)
class BaselineResult:
    snapshot: BaselineSnapshot
    outcome: str  # created | replaced | unchanged


def baseline_fields(snapshot: SnapshotDocument) -> dict[str, Any]:
    return {
        "created_at": instant(snapshot.created_at),
        "source_root_dir": snapshot.source_root_dir,
        "notes": snapshot.notes or "",
        "document": snapshot.to_wire(),
    }


def baseline_snapshot_store(
    *, document: Any, user: Any = None, key: Any = None
) -> BaselineResult:
    """Store a posted baseline snapshot document as it is.

    Needs the baseline-snapshots flag. The same document again is
    ``unchanged``; a different one under an existing snapshotId is a
    ``Conflict`` (to move a named baseline forward, make it from the latest
    runs). Logs ``[Eval] baseline_snapshot_saved snapshot_id=<id>
    benchmark_count=<n> outcome=<o>``. Needs staff or a key with
    ``baselines:write`` (``Forbidden``); the user and the key are recorded.
    """
    require_baseline_snapshots()
    require_gate_privilege(
        user=user, key=key, scope=BASELINES_WRITE, action="storing a baseline"
    )
    snapshot = validate_baseline_snapshot(document)
    require_storable(
        document,
        BaselineSnapshot,
        [("source_root_dir", "$.sourceRootDir", snapshot.source_root_dir)],
        what="baseline snapshot",
    )
    fields = baseline_fields(snapshot)
    existing = BaselineSnapshot.objects.filter(snapshot_id=snapshot.snapshot_id).first()
    if existing is None:
        try:
            with transaction.atomic():
                row = BaselineSnapshot.objects.create(
                    snapshot_id=snapshot.snapshot_id,
                    created_by=user
                    if getattr(user, "is_authenticated", False)
                    else None,
                    created_by_key=key_name(key),
                    **fields,
                )
            return _baseline_logged(row, snapshot, "created")
        except IntegrityError:
            # Created concurrently: the same rule as for one found above.
            existing = BaselineSnapshot.objects.get(snapshot_id=snapshot.snapshot_id)
    if not same_document(existing.document, fields["document"]):
        raise Conflict(
            f"baseline snapshot {snapshot.snapshot_id} already exists with "
            "different content",
            details={"snapshotId": snapshot.snapshot_id},
        )
    return _baseline_logged(existing, snapshot, "unchanged")


def baseline_snapshot_create(
    *,
    snapshot_id: str,
    notes: str | None = None,
    user: Any = None,
    key: Any = None,
    now: datetime | None = None,
) -> BaselineResult:
    """Snapshot the latest completed run of every benchmark in the database
    under ``snapshot_id``, replacing a snapshot of that id (a named baseline
    such as ``required-main`` moves forward this way).

    Needs the baseline-snapshots flag (``FeatureDisabled``: "benchmark
    baseline snapshots are disabled"). An unsafe id raises ``SchemaInvalid``
    (``$.snapshotId``). Logs ``[Eval] baseline_snapshot_saved ...``. Needs
    staff or a key with ``baselines:write`` (``Forbidden``); the user and the
    key are recorded, and a replacement is written to the audit log
    (``accounts.audit``).
    """
    require_baseline_snapshots()
    require_gate_privilege(
        user=user, key=key, scope=BASELINES_WRITE, action="storing a baseline"
    )
    items, _invalid = latest_completed_run_items()
    snapshot = snapshot_from_runs(
        [item.item for item in items],
        snapshot_id=snapshot_id,
        created_at=wire_timestamp(now or timezone.now()),
        source_root_dir=DATABASE_SOURCE,
        notes=notes or None,
    )
    fields = baseline_fields(snapshot)
    with transaction.atomic():
        row, created = BaselineSnapshot.objects.update_or_create(
            snapshot_id=snapshot.snapshot_id,
            defaults={
                **fields,
                "created_by": user
                if getattr(user, "is_authenticated", False)
                else None,
                "created_by_key": key_name(key),
            },
        )
        if not created:
            audit_record(
                action=Action.BASELINE_REPLACE,
                target_type="baseline",
                target_id=row.snapshot_id,
                target_label=row.snapshot_id,
                user=user,
                key=key,
                details={"benchmarks": snapshot.benchmark_count, "notes": notes or ""},
            )
    return _baseline_logged(row, snapshot, "created" if created else "replaced")


def _baseline_logged(
    row: BaselineSnapshot, snapshot: SnapshotDocument, outcome: str
) -> BaselineResult:
    logger.info(
        "[Eval] baseline_snapshot_saved snapshot_id=%s benchmark_count=%d outcome=%s",
        snapshot.snapshot_id,
        snapshot.benchmark_count,
        outcome,
        extra={"snapshot_id": snapshot.snapshot_id, "outcome": outcome},
    )
    return BaselineResult(row, outcome)


def baseline_snapshot_bytes(row: BaselineSnapshot) -> bytes:
    """The snapshot exactly as ``eval_store_export`` writes it (rebuilt
    through the core: Postgres ``jsonb`` does not keep key order)."""
    return store_json_bytes(validate_baseline_snapshot(row.document).to_wire())
