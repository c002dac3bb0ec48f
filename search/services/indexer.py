"""The indexer: copies new rows of every source into search documents.

Each source has a watermark (``Watermark``): the last id read, or for review
comments (which change after they are written) the last change time and id.
A pass reads each source in batches after its watermark, upserts the batch's
documents by (kind, ref), fills their full-text entries and moves the
watermark, all in one transaction per batch, so a pass cut short resumes
where it stopped and a batch is never half-indexed. Reads happen outside the
transaction; nothing here calls the network.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q

from search.core.documents import Doc, flags_field
from search.models import SearchDocument, Watermark
from search.services import backends
from search.services.sources import BY_ID, BY_TIME, Batch
from stream.selectors_search import oldest_thought_id
from traces.facade import oldest_span_id

logger = logging.getLogger(__name__)

BATCH = 500
FIELDS = (
    "source_id",
    "subject",
    "subject_ref",
    "agent_id",
    "run_id",
    "suite_id",
    "queue_id",
    "eligible",
    "flags",
    "title",
    "link",
    "text",
    "terms",
    "created_at",
)


@dataclass(frozen=True, slots=True)
class PassResult:
    """Documents written per source in one pass, and whether a source still
    has rows left after the pass's batch budget."""

    written: dict[str, int]
    more: bool


def _model(doc: Doc) -> SearchDocument:
    return SearchDocument(
        kind=doc.kind,
        ref=doc.ref[:420],
        source_id=doc.source_id,
        subject=doc.subject,
        subject_ref=doc.subject_ref[:420],
        agent_id=doc.agent_id,
        run_id=doc.run_id[:200],
        suite_id=doc.suite_id[:200],
        queue_id=doc.queue_id,
        eligible=doc.eligible,
        flags=flags_field(doc.flags),
        title=doc.title[:300],
        link=doc.link[:500],
        text=doc.stored_text,
        terms=doc.terms,
        created_at=doc.created_at,
    )


def store(docs: list[Doc]) -> int:
    """Upsert the documents by (kind, ref) with their full-text entries;
    call inside a transaction."""
    if not docs:
        return 0
    latest = {(d.kind, d.ref): d for d in docs}  # a later row wins
    models = [_model(d) for d in latest.values()]
    SearchDocument.objects.bulk_create(
        models,
        update_conflicts=True,
        unique_fields=["kind", "ref"],
        update_fields=list(FIELDS),
    )
    if backends.vendor() == "postgresql":
        # bulk_create sets each upserted row's id (RETURNING on PostgreSQL)
        rows = [(m.pk, m.text) for m in models]
        backends.write_entries(rows)
    return len(models)


def _watermark(source: str) -> Watermark:
    mark, _ = Watermark.objects.get_or_create(source=source)
    return mark


def commit_batch(source: str, batch: Batch) -> None:
    """Store the batch and move the watermark forward, never back: a pass
    that overlaps another (a slow beat tick) rewrites the same documents and
    leaves the further watermark in place."""
    with transaction.atomic():
        store(batch.docs)
        marks = Watermark.objects.filter(source=source)
        if batch.last_time is None:
            marks = marks.filter(last_id__lt=batch.last_id)
        else:
            marks = marks.filter(
                Q(last_time__isnull=True)
                | Q(last_time__lt=batch.last_time)
                | Q(last_time=batch.last_time, last_id__lt=batch.last_id)
            )
        marks.update(last_id=batch.last_id, last_time=batch.last_time)


def index_pass(*, batch: int = BATCH, max_batches: int = 20) -> PassResult:
    """Read every source after its watermark, at most ``max_batches``
    batches of ``batch`` rows each."""
    written: dict[str, int] = {}
    more = False
    for source, read in BY_ID.items():
        mark = _watermark(source)
        last = mark.last_id
        for _ in range(max_batches):
            found = read(last, batch)
            if not found.rows:
                break
            commit_batch(source, found)
            written[source] = written.get(source, 0) + len(found.docs)
            last = found.last_id
            if found.rows < batch:
                break
        else:
            more = True
    for source, read_changed in BY_TIME.items():
        mark = _watermark(source)
        last, when = mark.last_id, mark.last_time
        for _ in range(max_batches):
            found = read_changed(last, batch, when)
            if not found.rows:
                break
            commit_batch(source, found)
            written[source] = written.get(source, 0) + len(found.docs)
            last, when = found.last_id, found.last_time
            if found.rows < batch:
                break
        else:
            more = True
    pruned = prune_deleted()
    if written or pruned:
        logger.info("[Search] indexed %s; pruned %d", written or "nothing", pruned)
    return PassResult(written, more)


def prune_deleted() -> int:
    """Delete the documents of thoughts and model calls retention has
    deleted: retention deletes the oldest, so those whose source ids are
    below the oldest one stored (all of the kind when none is left)."""
    deleted = 0
    for kind, oldest in (
        ("thought", oldest_thought_id()),
        ("completion", oldest_span_id()),
    ):
        stale = SearchDocument.objects.filter(kind=kind)
        if oldest is not None:
            stale = stale.filter(source_id__lt=oldest)
        count, _ = stale.delete()
        deleted += count
    return deleted


def rebuild(*, batch: int = BATCH) -> PassResult:
    """Forget every document and watermark, then index everything again."""
    with transaction.atomic():
        SearchDocument.objects.all().delete()
        Watermark.objects.all().delete()
    total: dict[str, int] = {}
    while True:
        result = index_pass(batch=batch, max_batches=1000)
        for source, count in result.written.items():
            total[source] = total.get(source, 0) + count
        if not result.more:
            return PassResult(total, False)
