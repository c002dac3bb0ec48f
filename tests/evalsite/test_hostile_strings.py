"""Hostile strings get a 400 naming the field, never a server error."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rest_framework.test import APIClient

from core.errors import SchemaProblem
from evals.core.blobs import ref_of
from evals.models import Benchmark, InvalidUpload, Run
from evals.services.benchmarks import invalid_upload_keep
from evals.services.pack_files import pack_file_names
from stream.models import Thought
from tests.api_errors import error_fields

pytestmark = pytest.mark.django_db

THOUGHTS = "/api/cognitive-stream/thoughts"


def post_raw(client: APIClient, url: str, raw: bytes) -> Any:
    return client.generic("POST", url, raw, content_type="application/json")


@pytest.fixture
def staff_api(staff: Any, settings: Any) -> APIClient:
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.EVAL_HARNESS_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    client = APIClient()
    client.force_authenticate(staff)
    return client


@pytest.mark.parametrize(
    ("raw", "field", "reason"),
    [
        (
            b'{"content": "a\\u0000b"}',
            "$.content",
            "value contains a NUL character (\\u0000)",
        ),
        (
            b'{"content": "x", "metadata": {"k": ["ok", "\\ud800"]}}',
            "$.metadata.k[1]",
            "value contains a lone surrogate (\\ud800)",
        ),
        (
            b'{"content": "x", "metadata": {"a\\u0000": 1}}',
            "$.metadata.a\\u0000",
            "key contains a NUL character (\\u0000)",
        ),
        (
            b'{"content": "x", "metadata": {"n": 100000000000000000000}}',
            "$.metadata.n",
            "integer is out of range (64-bit signed)",
        ),
    ],
)
def test_unstorable_value_is_400_naming_the_field(
    agent_client: APIClient, raw: bytes, field: str, reason: str
) -> None:
    response = post_raw(agent_client, THOUGHTS, raw)

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid",
        "message": "Invalid input: 1 problem.",
        "fields": [{"path": field, "message": reason}],
    }
    assert Thought.objects.count() == 0


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"content": NaN}', "Malformed JSON: NaN is not a JSON number"),
        (b'{"content": -Infinity}', "Malformed JSON: -Infinity is not a JSON number"),
        (
            b'\xef\xbb\xbf{"content": "x"}',
            "Request body starts with a byte-order mark; send UTF-8 JSON without one.",
        ),
        (
            '{"content": "x"}'.encode("utf-16"),
            "Request body starts with a byte-order mark; send UTF-8 JSON without one.",
        ),
        (
            '{"content": "x"}'.encode("utf-16-le"),
            "Request body is UTF-16 or UTF-32; JSON must be UTF-8.",
        ),
        (
            b'{"content": "caf\xe9"}',
            "Request body is not UTF-8 (byte 16); JSON must be UTF-8.",
        ),
    ],
)
def test_non_json_numbers_and_non_utf8_bodies_are_refused(
    agent_client: APIClient, raw: bytes, message: str
) -> None:
    response = post_raw(agent_client, THOUGHTS, raw)

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "parse_error",
        "message": message,
        "fields": [],
    }
    assert Thought.objects.count() == 0


def test_a_5_mb_value_is_not_echoed_back(staff_api: APIClient) -> None:
    huge = "x" * (5 << 20)
    document = {"schemaVersion": 1, "runId": huge, "benchmarkId": "b"}

    response = staff_api.post("/api/benchmarks/runs", document, format="json")

    assert response.status_code == 400
    assert len(response.content) < 10_000
    assert Run.objects.count() == 0


def test_invalid_upload_is_kept_with_a_storable_copy_of_what_came() -> None:
    upload = invalid_upload_keep(
        raw='{"title": "t\x00\ud800"}',
        problems=[SchemaProblem("$.title", "x", "bad \udc80")],
        filename="pack\udc80" + "n" * 600,
        extra_files={"a\x00.txt": ref_of(b"x")},
    )

    upload.refresh_from_db()
    assert upload.raw == '{"title": "t\\u0000\\ud800"}'
    assert upload.filename.startswith("pack\\udc80nnn")
    assert len(upload.filename) == 500
    assert upload.errors == [{"path": "$.title", "code": "x", "message": "bad \\udc80"}]
    assert pack_file_names(upload=upload) == ["a\\u0000.txt"]


def test_pack_file_with_nul_and_surrogates_is_kept_for_review_escaped(
    staff_api: APIClient,
) -> None:
    text = '{"schemaVersion": 1, "benchmarkId": "b", "title": "t\\u0000", '
    text += '"cases": [{"id": "c", "prompt": "\\udc00"}]}'
    upload = io.BytesIO(text.encode() + b"\x00")
    upload.name = "pack.json"

    response = staff_api.post(
        "/api/benchmarks/packs", {"file": upload}, format="multipart"
    )

    assert response.status_code == 400
    error = response.json()["error"]
    kept = InvalidUpload.objects.get()
    assert error["invalidUploadId"] == kept.pk
    assert "\x00" not in kept.raw
    assert Benchmark.objects.count() == 0


def test_manifest_with_nul_strings_is_400_naming_paths_and_kept(
    staff_api: APIClient,
) -> None:
    text = b'{"schemaVersion": 1, "benchmarkId": "b", "title": "t\\u0000", '
    text += b'"cases": [{"id": "c", "prompt": "p\\u0000"}]}'
    upload = io.BytesIO(text)
    upload.name = "pack.json"

    response = staff_api.post(
        "/api/benchmarks/packs", {"file": upload}, format="multipart"
    )

    assert response.status_code == 400
    fields = error_fields(response)
    assert fields == {
        "$.cases[0].prompt": ["value contains a NUL character (\\u0000)"],
        "$.title": ["value contains a NUL character (\\u0000)"],
    }
    kept = InvalidUpload.objects.get()
    assert '"t\\u0000"' in kept.raw
    assert Benchmark.objects.count() == 0


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("gitRef", "g" * 201, "gitRef must be at most 200 characters"),
    ],
)
def test_value_longer_than_its_column_is_400_naming_it(
    staff_api: APIClient, field: str, value: str, reason: str
) -> None:
    Benchmark.objects.create(benchmark_id="base", kind="pack", title="Base")
    document = {
        "schemaVersion": 1,
        "runId": "r1",
        "benchmarkId": "base",
        "status": "completed",
        "startedAt": "2026-03-06T09:00:00Z",
        "totalCases": 0,
        "passedCases": 0,
        "failedCases": 0,
        "metrics": {},
        field: value,
    }

    response = staff_api.post("/api/benchmarks/runs", document, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {f"$.{field}": [reason]}
    assert Run.objects.count() == 0


@pytest.mark.parametrize(
    "run_id",
    ["ad\u200bmin", "evil\u202egnp", "x\uffff", "bidi\u2066iso", "soft\u00adhyphen"],
)
def test_look_alike_identifiers_are_refused(staff_api: APIClient, run_id: str) -> None:
    Benchmark.objects.create(benchmark_id="base", kind="pack", title="Base")
    document = {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": "base",
        "status": "completed",
        "startedAt": "2026-03-06T09:00:00Z",
        "totalCases": 0,
        "passedCases": 0,
        "failedCases": 0,
        "metrics": {},
    }

    response = staff_api.post("/api/benchmarks/runs", document, format="json")

    assert response.status_code == 400
    assert list(error_fields(response)) == ["$.runId"]
    assert Run.objects.count() == 0


@pytest.mark.parametrize(
    "url",
    [
        "/api/benchmarks/runs/r%00x",
        "/api/benchmarks/runs?benchmark=a%00b",
        "/api/tasks?status=%00",
    ],
)
def test_nul_in_api_path_or_query_is_400_json(staff_api: APIClient, url: str) -> None:
    response = staff_api.get(url)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert error["message"] == "The request address is invalid."
    [(field, [reason])] = error_fields(response).items()
    assert reason.endswith("contains a NUL character (\\u0000)")


@pytest.mark.parametrize("url", ["/benchmarks/x%00y", "/evals/?q=%00"])
def test_nul_in_page_path_or_query_is_400_page(owner_client: Any, url: str) -> None:
    response = owner_client.get(url)

    assert response.status_code == 400
    assert b"Bad request" in response.content
    assert b"contains a NUL character" in response.content


def test_an_id_past_64_bits_is_404_in_the_api(agent_client: APIClient) -> None:
    response = agent_client.get("/api/tasks/99999999999999999999999")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_an_id_past_64_bits_is_404_on_a_page(owner_client: Any) -> None:
    response = owner_client.get("/gridworld/batches/99999999999999999999999/")

    assert response.status_code == 404


def page_paths() -> list[str]:
    """Every page address without parameters (admin and API aside)."""
    from django.urls import URLPattern, URLResolver, get_resolver

    found: list[str] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for entry in patterns:
            route = str(entry.pattern)
            if isinstance(entry, URLResolver):
                if not route.startswith("admin/"):
                    walk(entry.url_patterns, prefix + route)
            elif (
                isinstance(entry, URLPattern) and "<" not in route and "(" not in route
            ):
                path = "/" + prefix + route.lstrip("^").rstrip("$")
                if not path.startswith("/api/") and "accounts/logout" not in path:
                    found.append(path)

    walk(get_resolver().url_patterns, "")
    return sorted(set(found))


def test_nul_in_the_query_of_every_page_is_400(staff_client: Any) -> None:
    paths = page_paths()
    answers = {path: staff_client.get(f"{path}?q=%00").status_code for path in paths}

    assert len(paths) >= 10
    assert answers == dict.fromkeys(paths, 400)
