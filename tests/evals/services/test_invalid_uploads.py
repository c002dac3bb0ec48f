"""evals.services.invalid_uploads: an invalid upload kept for review is
re-validated, accepted once valid (one pack, one review) or rejected."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import Conflict, SchemaInvalid
from evals.models import Benchmark, InvalidUpload
from evals.services.benchmarks import benchmark_pack_create
from evals.services.invalid_uploads import (
    invalid_upload_accept,
    invalid_upload_reject,
    invalid_upload_revalidate,
)

pytestmark = pytest.mark.django_db

RED_TEAM = {
    "schemaVersion": 1,
    "benchmarkId": "poison",
    "title": "poison",
    "cases": [{"id": "c", "prompt": "p"}],
    "benchmarkType": "memory-red-team",
    "attackClass": "a",
    "targetSurface": "b",
}


@pytest.fixture
def upload(settings: Any, owner: Any) -> InvalidUpload:
    """Kept only because the red-team flag was off when it came in."""
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = False
    with pytest.raises(SchemaInvalid) as caught:
        benchmark_pack_create(
            document=RED_TEAM, keep_invalid=True, user=owner, filename="poison.json"
        )
    return InvalidUpload.objects.get(pk=caught.value.details["invalidUploadId"])


def test_revalidating_stores_the_problems_found_now(
    upload: InvalidUpload, settings: Any, log_lines: Any
) -> None:
    assert upload.error_count > 0
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True
    assert invalid_upload_revalidate(upload=upload) == []
    upload.refresh_from_db()
    assert (upload.errors, upload.error_count) == ([], 0)
    assert log_lines("[Eval] invalid_upload_revalidated") == [
        f"[Eval] invalid_upload_revalidated upload_id={upload.pk} problems=0"
    ]


def test_a_still_invalid_upload_is_not_accepted(
    upload: InvalidUpload, staff: Any
) -> None:
    with pytest.raises(SchemaInvalid, match="the upload is still invalid"):
        invalid_upload_accept(upload=upload, reviewer=staff)
    upload.refresh_from_db()
    assert upload.status == InvalidUpload.Status.PENDING
    assert not Benchmark.objects.exists()


def test_accepting_a_valid_upload_makes_its_pack_and_reviews_it_once(
    upload: InvalidUpload, settings: Any, staff: Any, log_lines: Any
) -> None:
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True
    result = invalid_upload_accept(upload=upload, reviewer=staff)
    assert result.benchmark.benchmark_id == "poison"
    upload.refresh_from_db()
    assert (upload.status, upload.reviewed_by) == (InvalidUpload.Status.ACCEPTED, staff)
    assert log_lines("[Eval] invalid_upload_accepted") == [
        f"[Eval] invalid_upload_accepted upload_id={upload.pk} benchmark_id=poison"
    ]
    with pytest.raises(Conflict, match=f"upload {upload.pk} was already reviewed"):
        invalid_upload_reject(upload=upload, reviewer=staff)


def test_rejecting_marks_the_upload_and_makes_nothing(
    upload: InvalidUpload, staff: Any, log_lines: Any
) -> None:
    invalid_upload_reject(upload=upload, reviewer=staff)
    upload.refresh_from_db()
    assert (upload.status, upload.reviewed_by) == (InvalidUpload.Status.REJECTED, staff)
    assert upload.reviewed_at is not None
    assert not Benchmark.objects.exists()
    assert log_lines("[Eval] invalid_upload_rejected") == [
        f"[Eval] invalid_upload_rejected upload_id={upload.pk}"
    ]
