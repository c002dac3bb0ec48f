"""Staff review of invalid pack uploads in the admin, and the read-mostly
admin of the other evals models."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from core.errors import SchemaInvalid
from evals.models import Benchmark, InvalidUpload
from evals.services.benchmarks import benchmark_pack_create
from evals.services.pack_files import pack_file_contents

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/evals/invalidupload/"


def manifest(**extra: Any) -> dict:
    return {
        "schemaVersion": 1,
        "benchmarkId": "poison",
        "title": "poison",
        "cases": [{"id": "c", "prompt": "p"}],
        **extra,
    }


def keep(document: Any, **kwargs: Any) -> InvalidUpload:
    with pytest.raises(SchemaInvalid) as caught:
        benchmark_pack_create(document=document, keep_invalid=True, **kwargs)
    return InvalidUpload.objects.get(pk=caught.value.details["invalidUploadId"])


@pytest.fixture
def staff_client(staff: Any) -> Client:
    client = Client()
    client.force_login(staff)
    return client


@pytest.fixture
def red_team_upload(owner: Any) -> InvalidUpload:
    """Refused only because the red-team flag was off at upload time."""
    return keep(
        manifest(benchmarkType="memory-red-team", attackClass="a", targetSurface="b"),
        user=owner,
        filename="poison.json",
        extra_files={"notes.txt": b"n"},
    )


def act(client: Client, action: str, *uploads: InvalidUpload) -> Any:
    return client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [u.pk for u in uploads]},
        follow=True,
    )


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_changelist_lists_pending_uploads_with_error_counts(
    staff_client: Client, red_team_upload: InvalidUpload
) -> None:
    response = staff_client.get(CHANGELIST + "?status__exact=pending")

    assert response.status_code == 200
    html = response.content.decode()
    assert "poison.json" in html
    assert list(response.context["cl"].result_list) == [red_team_upload]


def test_change_page_shows_every_error_with_its_path(
    staff_client: Client, red_team_upload: InvalidUpload
) -> None:
    response = staff_client.get(f"{CHANGELIST}{red_team_upload.pk}/change/")

    html = response.content.decode()
    assert (
        "<tr><td><code>$.benchmarkType</code></td><td>memory-red-team benchmark "
        "packs require memoryRedTeamBenchEnabled</td>"
    ) in html
    assert "notes.txt" in html


def test_members_cannot_reach_the_admin(member_client: Client) -> None:
    response = member_client.get(CHANGELIST)

    assert response.status_code == 302


def test_revalidate_after_the_flag_is_on_clears_the_errors(
    staff_client: Client, red_team_upload: InvalidUpload, settings: Any
) -> None:
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True

    response = act(staff_client, "revalidate", red_team_upload)

    red_team_upload.refresh_from_db()
    assert red_team_upload.errors == []
    assert red_team_upload.status == "pending"
    assert messages_of(response) == ["Re-validated: 1 now valid, 0 still invalid."]


def test_accept_of_a_still_invalid_upload_changes_nothing(
    staff_client: Client, red_team_upload: InvalidUpload
) -> None:
    response = act(staff_client, "accept", red_team_upload)

    red_team_upload.refresh_from_db()
    assert red_team_upload.status == "pending"
    assert Benchmark.objects.count() == 0
    assert messages_of(response) == [
        f"Upload {red_team_upload.pk} is still invalid (1 problem(s)); fix it first."
    ]


def test_accept_of_a_valid_upload_creates_the_pack(
    staff_client: Client,
    staff: Any,
    owner: Any,
    red_team_upload: InvalidUpload,
    settings: Any,
    log_lines: Any,
) -> None:
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True

    response = act(staff_client, "accept", red_team_upload)

    red_team_upload.refresh_from_db()
    assert red_team_upload.status == "accepted"
    assert red_team_upload.reviewed_by == staff
    assert red_team_upload.reviewed_at is not None
    pack = Benchmark.objects.get()
    assert (pack.benchmark_id, pack.benchmark_type) == ("poison", "memory-red-team")
    assert pack_file_contents(benchmark=pack) == {"notes.txt": b"n"}
    assert messages_of(response) == [
        f"Upload {red_team_upload.pk} accepted: pack poison created."
    ]
    assert log_lines("[Eval] invalid_upload_accepted") == [
        f"[Eval] invalid_upload_accepted upload_id={red_team_upload.pk} "
        "benchmark_id=poison"
    ]


def test_fix_the_text_then_accept(staff_client: Client, owner: Any) -> None:
    upload = keep(manifest(title=""), user=owner)
    fixed = json.dumps(manifest(title="fixed title"))

    saved = staff_client.post(
        f"{CHANGELIST}{upload.pk}/change/", {"raw": fixed}, follow=True
    )
    upload.refresh_from_db()
    errors_after_fix = upload.errors
    act(staff_client, "accept", upload)

    assert f"Upload {upload.pk} now validates: accept it to import it." in (
        messages_of(saved)
    )
    assert errors_after_fix == []
    assert Benchmark.objects.get().title == "fixed title"


def test_saving_a_still_broken_text_records_its_errors(
    staff_client: Client, owner: Any
) -> None:
    upload = keep(manifest(title=""), user=owner)

    staff_client.post(f"{CHANGELIST}{upload.pk}/change/", {"raw": "{oops"})

    upload.refresh_from_db()
    assert upload.raw == "{oops"
    assert [e["code"] for e in upload.errors] == ["invalid_json"]


def test_reject_marks_it_rejected_and_it_stays_so(
    staff_client: Client, staff: Any, red_team_upload: InvalidUpload, settings: Any
) -> None:
    rejected = act(staff_client, "reject", red_team_upload)
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True
    accepted = act(staff_client, "accept", red_team_upload)

    red_team_upload.refresh_from_db()
    assert red_team_upload.status == "rejected"
    assert red_team_upload.reviewed_by == staff
    assert messages_of(rejected) == ["Rejected 1 upload(s)."]
    assert messages_of(accepted) == [
        f"Upload {red_team_upload.pk}: upload {red_team_upload.pk} was already reviewed"
    ]
    assert Benchmark.objects.count() == 0


def test_accept_refuses_to_replace_a_different_pack(
    staff_client: Client, red_team_upload: InvalidUpload, settings: Any
) -> None:
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True
    benchmark_pack_create(document=manifest(title="already there"))

    response = act(staff_client, "accept", red_team_upload)

    red_team_upload.refresh_from_db()
    assert red_team_upload.status == "pending"
    assert Benchmark.objects.get().title == "already there"
    assert messages_of(response) == [
        f"Upload {red_team_upload.pk}: benchmark pack already exists: poison"
    ]


@pytest.mark.parametrize(
    "model", ["benchmark", "run", "shadowrecord", "baselinesnapshot", "suiteversion"]
)
def test_other_models_are_read_only(staff_client: Client, model: str) -> None:
    listing = staff_client.get(f"/admin/evals/{model}/")
    add = staff_client.get(f"/admin/evals/{model}/add/")

    assert listing.status_code == 200
    assert add.status_code == 403
