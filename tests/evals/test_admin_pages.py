"""The evals admin pages staff use: an invalid upload is accepted or
rejected from its own page, not only from the list; no admin page shows
where the server keeps files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from core.errors import SchemaInvalid
from evals.models import Benchmark, InvalidUpload, Run
from evals.services.benchmarks import benchmark_pack_create
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_execute

pytestmark = pytest.mark.django_db

UPLOADS = "/admin/evals/invalidupload/"
SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"


def invalid_upload(owner: Any, **extra: Any) -> InvalidUpload:
    document = {
        "schemaVersion": 1,
        "benchmarkId": "poison",
        "title": "",
        "cases": [{"id": "c", "prompt": "p"}],
        **extra,
    }
    with pytest.raises(SchemaInvalid) as caught:
        benchmark_pack_create(
            document=document, keep_invalid=True, user=owner, filename="poison.json"
        )
    return InvalidUpload.objects.get(pk=caught.value.details["invalidUploadId"])


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def fixed_text() -> str:
    return json.dumps(
        {
            "schemaVersion": 1,
            "benchmarkId": "poison",
            "title": "fixed title",
            "cases": [{"id": "c", "prompt": "p"}],
        }
    )


def test_a_pending_uploads_own_page_has_accept_and_reject_buttons(
    staff_client: Client, owner: Any
) -> None:
    upload = invalid_upload(owner)

    html = staff_client.get(f"{UPLOADS}{upload.pk}/change/").content.decode()

    assert '<input type="submit" value="Save and accept" name="_accept">' in html
    assert '<input type="submit" value="Reject" name="_reject">' in html
    assert "Manifest text (JSON)" in html
    # Save stays the first button, so Enter in the text never accepts.
    assert html.index('name="_save"') < html.index('name="_accept"')


def test_fix_the_text_and_accept_from_the_uploads_own_page(
    staff_client: Client, owner: Any, staff: Any
) -> None:
    upload = invalid_upload(owner)

    response = staff_client.post(
        f"{UPLOADS}{upload.pk}/change/",
        {"raw": fixed_text(), "_accept": "Save and accept"},
        follow=True,
    )

    upload.refresh_from_db()
    assert response.redirect_chain == [(f"{UPLOADS}{upload.pk}/change/", 302)]
    assert (upload.status, upload.reviewed_by) == ("accepted", staff)
    assert Benchmark.objects.get().title == "fixed title"
    assert messages_of(response) == [
        f"Upload {upload.pk} accepted: pack poison created."
    ]
    # Reviewed: no buttons any more.
    assert 'name="_accept"' not in response.content.decode()


def test_accept_from_the_page_of_a_still_invalid_upload_imports_nothing(
    staff_client: Client, owner: Any
) -> None:
    upload = invalid_upload(owner)

    response = staff_client.post(
        f"{UPLOADS}{upload.pk}/change/",
        {"raw": upload.raw, "_accept": "Save and accept"},
        follow=True,
    )

    upload.refresh_from_db()
    assert upload.status == "pending"
    assert Benchmark.objects.count() == 0
    assert messages_of(response) == [
        f"Upload {upload.pk} is still invalid (1 problem(s)); fix it first."
    ]


def test_reject_from_the_uploads_own_page(staff_client: Client, owner: Any) -> None:
    upload = invalid_upload(owner)

    response = staff_client.post(
        f"{UPLOADS}{upload.pk}/change/",
        {"raw": upload.raw, "_reject": "Reject"},
        follow=True,
    )

    upload.refresh_from_db()
    assert upload.status == "rejected"
    assert messages_of(response) == ["Rejected 1 upload(s)."]


def test_the_run_admin_page_shows_no_server_path(
    staff_client: Client, settings: Any, tmp_path: Path
) -> None:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    settings.EVALS_SUITES_DIR = SHIPPED
    run = run_execute(
        run=eval_run_create(
            suite_path=SHIPPED / "smoke.jsonl",
            profile="balanced",
            mode="thought_only",
            model="scripted",
            schedule=False,
        )
    )
    Run.objects.filter(pk=run.pk).update(
        error=f"could not read {SHIPPED}/smoke.jsonl", store_path="runs/x/y.json"
    )
    assert str(tmp_path) in Run.objects.get(pk=run.pk).artifacts_dir

    html = staff_client.get(f"/admin/evals/run/{run.pk}/change/").content.decode()
    benchmark = staff_client.get(
        f"/admin/evals/benchmark/{run.benchmark.pk}/change/"
    ).content.decode()

    for page in (html, benchmark):
        assert str(tmp_path) not in page
        assert str(SHIPPED) not in page
        assert "/work/" not in page and "/home/" not in page
    assert f"bundle evals/smoke/balanced/{run.run_id}/ in the artifacts" in html
    assert "eval store file runs/x/y.json" in html
    assert "could not read smoke.jsonl" in html
    assert "&quot;suitePath&quot;: &quot;smoke.jsonl&quot;" in html
    assert "smoke.jsonl" in benchmark
