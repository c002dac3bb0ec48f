"""Use cases of run summaries (shadow recall records:
``evals.services.shadow_records``; baseline snapshots:
``evals.services.baselines``).

Run summaries come in over REST, the commands and the demo; each is
validated by the core (``evals.core.runs``) before anything is written, and
written in one transaction, so a refused document leaves nothing behind.

What it writes: ``Run`` + ``CaseResult`` (source api). What it logs: one
``[Eval] benchmark_run_recorded key=value`` line per write.

Idempotency: a document equal to the stored one (same canonical digest) is a
no-op reported as unchanged; a different document under an existing id is a
``Conflict`` (409). Unique constraints decide races: the loser re-reads and
compares. ``same_document`` and ``stored_documents`` are shared with the
shadow records and the store import.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import OuterRef, Q, Subquery
from django.db.models.functions import Coalesce

from core.canonical import digest
from core.errors import Conflict, SchemaInvalid, SchemaProblem
from evals.core.formats_types import RunSummary
from evals.core.runs import latest_completed_runs, validate_run_summary
from evals.core.store import InvalidItem, StoredItem
from evals.core.wire import instant
from evals.models import BaselineSnapshot, Benchmark, CaseResult, Run, ShadowRecord
from evals.services.benchmarks import LOOKUP_CHUNK
from evals.services.columns import require_storable

logger = logging.getLogger(__name__)


# --- run summaries -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunRecordResult:
    run: Run
    created: bool


def run_fields(summary: RunSummary) -> dict[str, Any]:
    """The ``Run`` columns of a valid run summary (``summary`` = its wire)."""
    return {
        "status": summary.status.value,
        "started_at": instant(summary.started_at),
        "completed_at": instant(summary.completed_at) if summary.completed_at else None,
        "total_cases": summary.total_cases,
        "passed_cases": summary.passed_cases,
        "failed_cases": summary.failed_cases,
        "metrics": dict(summary.metrics or {}),
        "notes": summary.notes or "",
        "git_ref": summary.git_ref or "",
        "summary": summary.to_wire(),
    }


def case_rows(run: Run, summary: RunSummary) -> list[CaseResult]:
    return [
        CaseResult(
            run=run,
            case_id=result.case_id,
            passed=result.passed,
            latency_ms=result.duration_ms,
            error="" if result.passed else (result.notes or ""),
            details=result.to_wire(),
        )
        for result in summary.case_results or ()
    ]


def same_document(stored: Any, wire: Mapping[str, Any]) -> bool:
    return isinstance(stored, dict) and digest(stored) == digest(wire)


def _unknown_benchmark(benchmark_id: str) -> SchemaInvalid:
    return SchemaInvalid(
        f"unknown benchmark {benchmark_id!r}",
        problems=[
            SchemaProblem(
                "$.benchmarkId",
                "unknown_benchmark",
                f"benchmarkId must name a known benchmark (upload its pack first): "
                f"{benchmark_id}",
            )
        ],
    )


def benchmark_run_record(
    *, document: Any, user: Any = None, source: str = Run.Source.API
) -> RunRecordResult:
    """Validate a run summary (optionally with ``caseResults``) and store it
    as a ``Run`` of its benchmark, with one ``CaseResult`` per case result.

    The benchmark must exist (``SchemaInvalid`` on ``$.benchmarkId``
    otherwise). Re-posting the same summary is a no-op (``created`` False);
    a different summary under an existing runId is a ``Conflict``. Logs
    ``[Eval] benchmark_run_recorded run_id=<id> benchmark_id=<id>
    status=<s> source=<s> passed=<p> total=<t>``.
    """
    summary = validate_run_summary(document)
    require_storable(
        document,
        Run,
        [("git_ref", "$.gitRef", summary.git_ref)],
        what="run summary",
    )
    require_storable(
        None,
        CaseResult,
        [
            ("case_id", f"$.caseResults[{index}].caseId", result.case_id)
            for index, result in enumerate(summary.case_results or ())
        ],
        what="run summary",
        identifiers=[
            (f"$.caseResults[{index}].caseId", result.case_id)
            for index, result in enumerate(summary.case_results or ())
        ],
    )
    fields = run_fields(summary)
    existing = Run.objects.filter(run_id=summary.run_id).first()
    if existing is not None:
        return RunRecordResult(_unchanged_run(existing, fields["summary"]), False)
    benchmark = Benchmark.objects.filter(benchmark_id=summary.benchmark_id).first()
    if benchmark is None:
        raise _unknown_benchmark(summary.benchmark_id)
    try:
        with transaction.atomic():
            run = Run.objects.create(
                run_id=summary.run_id,
                benchmark=benchmark,
                source=source,
                created_by=user if getattr(user, "is_authenticated", False) else None,
                **fields,
            )
            CaseResult.objects.bulk_create(
                case_rows(run, summary), batch_size=LOOKUP_CHUNK
            )
    except IntegrityError:
        # Another request stored this runId first; same rule as above.
        existing = Run.objects.get(run_id=summary.run_id)
        return RunRecordResult(_unchanged_run(existing, fields["summary"]), False)
    logger.info(
        "[Eval] benchmark_run_recorded run_id=%s benchmark_id=%s status=%s "
        "source=%s passed=%d total=%d",
        run.run_id,
        benchmark.benchmark_id,
        run.status,
        source,
        run.passed_cases,
        run.total_cases,
        extra={"run_id": run.run_id, "benchmark_id": benchmark.benchmark_id},
    )
    return RunRecordResult(run, True)


def _unchanged_run(existing: Run, wire: Mapping[str, Any]) -> Run:
    if not same_document(existing.summary, wire):
        raise Conflict(
            f"run {existing.run_id} already exists with different content",
            details={"runId": existing.run_id},
        )
    return existing


def run_store_path(run_id: str) -> str:
    """Where a run lives in an eval store (what problems and reports cite)."""
    return f"runs/{run_id}.json"


def run_items(
    rows: Iterable[tuple[str, Any]],
) -> tuple[list[StoredItem[RunSummary]], list[InvalidItem]]:
    """``(run_id, summary)`` rows -> valid run summaries and invalid ones.

    Documents written through this module were validated on the way in;
    harness runs write theirs themselves, so every read validates again.
    """
    valid: list[StoredItem[RunSummary]] = []
    invalid: list[InvalidItem] = []
    for run_id, document in rows:
        try:
            valid.append(
                StoredItem(run_store_path(run_id), validate_run_summary(document))
            )
        except SchemaInvalid as error:
            invalid.append(InvalidItem(run_store_path(run_id), error.problems))
    return valid, invalid


def latest_completed_run_items() -> tuple[
    list[StoredItem[RunSummary]], list[InvalidItem]
]:
    """The latest completed run of each benchmark in the database, as the
    core decides it (newest completedAt, else startedAt; ties: greater runId),
    sorted by benchmark id; and the invalid summaries among the candidates.

    Only the candidates are read: completed runs whose completion instant is
    their benchmark's newest (the columns hold the summary's instants). Two
    steps, each an index probe per benchmark (``run_latest_completed_idx``):
    each benchmark's newest instant, then the runs at it. (One statement
    correlated with each run read every completed run: its time grew with
    the table, 12 ms at 10^5 case results and 327 ms at 10^7.)
    """
    recency = Coalesce("completed_at", "started_at")
    completed = Run.objects.filter(status=Run.Status.COMPLETED)
    newest = (
        completed.filter(benchmark=OuterRef("pk"))
        .annotate(recency=recency)
        .order_by("-recency")
        .values("recency")[:1]
    )
    instants = list(
        Benchmark.objects.annotate(newest=Subquery(newest))
        .exclude(newest=None)
        .values_list("pk", "newest")
    )
    rows: list[tuple[str, Any]] = []
    for start in range(0, len(instants), LOOKUP_CHUNK):
        wanted = Q()
        for benchmark_pk, newest_instant in instants[start : start + LOOKUP_CHUNK]:
            wanted |= Q(benchmark_id=benchmark_pk, recency=newest_instant)
        rows.extend(
            completed.annotate(recency=recency)
            .filter(wanted)
            .values_list("run_id", "summary")
        )
    valid, invalid = run_items(rows)
    latest = latest_completed_runs(item.item for item in valid)
    return (
        [StoredItem(run_store_path(run.run_id), run) for run in latest.values()],
        invalid,
    )


def stored_documents(
    model: type[ShadowRecord] | type[Run] | type[BaselineSnapshot],
    field: str,
    ids: Sequence[str],
    document_field: str,
) -> dict[str, Any]:
    """``{id: stored document}`` for the ids that exist, in chunked queries
    (plain SQL: building an ORM ``__in`` lookup cost a microsecond per id)."""
    opts = model._meta
    quote = connection.ops.quote_name
    key_column = quote(opts.get_field(field).column)
    document = opts.get_field(document_field)
    found: dict[str, Any] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(ids), LOOKUP_CHUNK):
            chunk = list(ids[start : start + LOOKUP_CHUNK])
            cursor.execute(
                f"SELECT {key_column}, {quote(document.column)} "  # noqa: S608
                f"FROM {quote(opts.db_table)} "
                f"WHERE {key_column} IN ({', '.join(['%s'] * len(chunk))})",
                chunk,
            )
            for key, value in cursor.fetchall():
                found[key] = document.from_db_value(value, None, connection)
    return found
