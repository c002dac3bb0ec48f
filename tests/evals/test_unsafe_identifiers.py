"""Case ids, tags and shadow memory ids are identifiers: a control, zero-width,
bidi or noncharacter (an id that renders like another one) is a 400 naming
the field, and nothing is written; the README promises it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from core.text import unsafe_identifiers
from evals.examples import example_manifest, example_run_summary, example_shadow_record
from evals.models import Benchmark, Run, ShadowRecord
from tests.api_errors import error_fields

pytestmark = pytest.mark.django_db

UNSAFE = {
    "right-to-left override": ("\u202e", "an invisible formatting character (\\u202e)"),
    "first-strong isolate": ("\u2068", "an invisible formatting character (\\u2068)"),
    "zero-width space": ("\u200b", "an invisible formatting character (\\u200b)"),
    "zero-width joiner": ("\u200d", "an invisible formatting character (\\u200d)"),
    "noncharacter": ("\ufdd0", "a Unicode noncharacter (\\ufdd0)"),
    "noncharacter U+FFFF": ("\uffff", "a Unicode noncharacter (\\uffff)"),
    "control": ("\x1b", "a control character (\\u001b)"),
}
CASES = pytest.mark.parametrize(
    ("char", "reason"), list(UNSAFE.values()), ids=list(UNSAFE)
)


@CASES
def test_a_case_id_in_a_run_summary(
    client: APIClient, pack: Benchmark, char: str, reason: str
) -> None:
    document = example_run_summary(
        "run-1",
        caseResults=[
            {"caseId": "case-0", "passed": True},
            {"caseId": f"case{char}-1", "passed": False},
        ],
    )

    response = client.post("/api/benchmarks/runs", document, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.caseResults[1].caseId": [f"caseId contains {reason}"]
    }
    assert Run.objects.count() == 0


@CASES
def test_a_case_id_and_a_tag_in_a_pack(
    client: APIClient, char: str, reason: str
) -> None:
    manifest = example_manifest(
        tags=["trajectory", f"trap{char}"],
        cases=[{"id": f"case{char}", "prompt": "p"}, {"id": "ok", "prompt": "p"}],
    )

    response = client.post("/api/benchmarks/packs", manifest, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.cases[0].id": [f"id contains {reason}"],
        "$.tags[1]": [f"tags[1] contains {reason}"],
    }
    assert Benchmark.objects.count() == 0


@CASES
def test_a_memory_id_of_a_shadow_record(
    client: APIClient, flags_on: Any, char: str, reason: str
) -> None:
    good = example_shadow_record("t1")
    bad = example_shadow_record("t2", memoryIds=["m-1", f"m{char}2"])
    body = json.dumps({"records": [good, bad]}).encode()

    response = client.post(
        "/api/benchmarks/shadow", body, content_type="application/json"
    )

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.records[1].memoryIds[1]": [f"memoryIds[1] contains {reason}"]
    }
    assert ShadowRecord.objects.count() == 0


def test_plain_and_readable_non_ascii_ids_are_accepted() -> None:
    assert (
        unsafe_identifiers(
            [
                ("a", "case-1"),
                ("b", "Fall \u00e9t\u00e9 \u6f22\u5b57"),
                ("c", "emoji \U0001f600"),
            ]
        )
        == []
    )
