"""Invalid uploads kept for staff review: re-validate, accept once valid,
reject. Logs the review lines ``[Eval] invalid_upload_{revalidated,accepted,
rejected} ...``."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import Conflict, SchemaInvalid, SchemaProblem
from evals.core.archive import MANIFEST_NAME
from evals.core.blobs import FileRef
from evals.core.format_rules import parse_json_document
from evals.core.packs import validate_manifest
from evals.models import InvalidUpload
from evals.services.benchmarks import PackResult, benchmark_pack_create
from evals.services.pack_files import pack_file_refs

logger = logging.getLogger(__name__)


def _upload_document(upload: InvalidUpload) -> tuple[Any, dict[str, FileRef]]:
    if upload.kind != InvalidUpload.Kind.MANIFEST:
        raise Conflict(
            f"only manifest uploads can be reviewed here, not {upload.kind}",
            details={"uploadId": upload.pk},
        )
    document = parse_json_document(upload.raw.encode("utf-8"), what=MANIFEST_NAME)
    return document, pack_file_refs(upload=upload)


def invalid_upload_problems(upload: InvalidUpload) -> list[SchemaProblem]:
    """Every problem of the upload as it is now, with the flags as they are."""
    try:
        document, _ = _upload_document(upload)
        validate_manifest(
            document, memory_red_team_enabled=settings.MEMORY_RED_TEAM_BENCH_ENABLED
        )
    except SchemaInvalid as error:
        return list(error.problems)
    return []


def invalid_upload_revalidate(*, upload: InvalidUpload) -> list[SchemaProblem]:
    """Validate the upload again (after a fix of its text, or of a flag) and
    store the problems found; returns them (empty: it can be accepted).
    Logs ``[Eval] invalid_upload_revalidated upload_id=<pk> problems=<n>``."""
    problems = invalid_upload_problems(upload)
    upload.errors = [problem.as_dict() for problem in problems]
    upload.error_count = len(problems)
    upload.save(update_fields=["errors", "error_count", "raw"])
    logger.info(
        "[Eval] invalid_upload_revalidated upload_id=%d problems=%d",
        upload.pk,
        len(problems),
        extra={"upload_id": upload.pk, "problems": len(problems)},
    )
    return problems


def _review(upload: InvalidUpload, status: str, reviewer: Any) -> None:
    changed = InvalidUpload.objects.filter(
        pk=upload.pk, status=InvalidUpload.Status.PENDING
    ).update(status=status, reviewed_by=reviewer, reviewed_at=timezone.now())
    if changed != 1:
        raise Conflict(
            f"upload {upload.pk} was already reviewed", details={"uploadId": upload.pk}
        )
    upload.refresh_from_db()


def invalid_upload_accept(*, upload: InvalidUpload, reviewer: Any) -> PackResult:
    """Turn a pending upload that now validates into a pack; mark it accepted.

    Raises ``SchemaInvalid`` (and stores the problems) when it is still
    invalid, ``Conflict`` when it was already reviewed or a different pack
    took its id meanwhile; the pack and the review are one transaction.
    Logs ``[Eval] invalid_upload_accepted upload_id=<pk> benchmark_id=<id>``.
    """
    problems = invalid_upload_revalidate(upload=upload)
    if problems:
        raise SchemaInvalid("the upload is still invalid", problems=problems)
    document, files = _upload_document(upload)
    with transaction.atomic():
        result = benchmark_pack_create(
            document=document,
            stored_files=files,
            user=upload.uploaded_by,
            filename=upload.filename,
        )
        _review(upload, InvalidUpload.Status.ACCEPTED, reviewer)
    logger.info(
        "[Eval] invalid_upload_accepted upload_id=%d benchmark_id=%s",
        upload.pk,
        result.benchmark.benchmark_id,
        extra={"upload_id": upload.pk},
    )
    return result


def invalid_upload_reject(*, upload: InvalidUpload, reviewer: Any) -> None:
    """Mark a pending upload rejected (nothing else changes).
    Logs ``[Eval] invalid_upload_rejected upload_id=<pk>``."""
    _review(upload, InvalidUpload.Status.REJECTED, reviewer)
    logger.info(
        "[Eval] invalid_upload_rejected upload_id=%d",
        upload.pk,
        extra={"upload_id": upload.pk},
    )
