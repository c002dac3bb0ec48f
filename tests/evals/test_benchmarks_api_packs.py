"""REST API of benchmark packs (the eval-store contract): /api/benchmarks/packs, and who may call the API."""

from __future__ import annotations

import io
import json
import tarfile
import tracemalloc
import zipfile
from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.examples import example_manifest as manifest
from evals.models import (
    Benchmark,
    InvalidUpload,
)
from evals.services.pack_files import pack_file_contents
from tests.api_errors import error_fields
from tests.hostile import huge_extension

pytestmark = pytest.mark.django_db


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def tar_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def upload(client: APIClient, name: str, data: bytes, **fields: Any) -> Any:
    file = io.BytesIO(data)
    file.name = name
    return client.post(
        "/api/benchmarks/packs", {"file": file, **fields}, format="multipart"
    )


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/benchmarks/packs"),
        ("post", "/api/benchmarks/packs"),
        ("get", "/api/benchmarks/packs/ama-memory"),
        ("get", "/api/benchmarks/runs"),
        ("post", "/api/benchmarks/runs"),
        ("get", "/api/benchmarks/runs/run-1"),
        ("get", "/api/benchmarks/shadow"),
        ("post", "/api/benchmarks/shadow"),
        ("get", "/api/benchmarks/baselines"),
        ("post", "/api/benchmarks/baselines"),
        ("get", "/api/benchmarks/baselines/required-main"),
        ("get", "/api/benchmarks/gate?snapshot=required-main"),
    ],
)
def test_anonymous_callers_get_401(
    anon_client: APIClient, method: str, path: str
) -> None:
    response = getattr(anon_client, method)(path, {}, format="json")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_agent_key_posts_a_pack(agent_client: APIClient, owner: Any) -> None:
    response = agent_client.post("/api/benchmarks/packs", manifest(), format="json")

    assert response.status_code == 201
    assert InvalidUpload.objects.count() == 0
    assert Benchmark.objects.get().benchmark_id == "ama-memory"


def test_pack_json_manifest_is_stored(client: APIClient, log_lines: Any) -> None:
    response = client.post("/api/benchmarks/packs", manifest(), format="json")

    assert response.status_code == 201
    body = response.json()
    assert body["benchmarkId"] == "ama-memory"
    assert body["kind"] == "pack"
    assert body["benchmarkType"] == "standard"
    assert body["caseCount"] == 2
    assert body["tags"] == ["trajectory"]
    assert body["manifest"] == manifest()
    assert body["files"] == []
    assert body["outcome"] == "created"
    assert body["url"] == "http://testserver/benchmarks/ama-memory/"
    assert log_lines("[Eval] benchmark_pack") == [
        "[Eval] benchmark_pack_saved benchmark_id=ama-memory cases=2 outcome=created"
    ]


def test_same_pack_again_is_a_no_op_200(client: APIClient, pack: Benchmark) -> None:
    response = client.post("/api/benchmarks/packs", manifest(), format="json")

    assert response.status_code == 200
    assert response.json()["outcome"] == "unchanged"
    assert Benchmark.objects.count() == 1


def test_different_pack_same_id_is_409_unless_forced(
    client: APIClient, staff_api: APIClient, pack: Benchmark
) -> None:
    changed = manifest(cases=3)

    refused = client.post("/api/benchmarks/packs", changed, format="json")
    not_staff = client.post("/api/benchmarks/packs?force=true", changed, format="json")
    assert not_staff.status_code == 403
    assert Benchmark.objects.get().case_count == 2
    forced = staff_api.post("/api/benchmarks/packs?force=true", changed, format="json")

    assert refused.status_code == 409
    assert refused.json()["error"]["message"] == (
        "benchmark pack already exists: ama-memory"
    )
    assert forced.status_code == 200
    assert forced.json()["outcome"] == "replaced"
    assert Benchmark.objects.get().case_count == 3


def test_pack_cannot_take_a_suite_id_even_forced(client: APIClient) -> None:
    Benchmark.objects.create(benchmark_id="smoke", kind="suite", title="smoke")

    response = client.post(
        "/api/benchmarks/packs?force=true", manifest("smoke"), format="json"
    )

    assert response.status_code == 409
    assert response.json()["error"]["message"] == (
        "benchmark id 'smoke' is taken by a scenario suite; a pack cannot replace it"
    )
    assert Benchmark.objects.get().kind == "suite"


def test_invalid_manifest_is_400_with_every_path_kept_for_review(
    client: APIClient, owner: Any
) -> None:
    document = {
        "schemaVersion": 2,
        "benchmarkId": "../x",
        "cases": [{"id": "a", "prompt": "p"}, {"id": "a", "prompt": ""}],
    }

    response = client.post("/api/benchmarks/packs", document, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert error_fields(response) == {
        "$.benchmarkId": ["benchmarkId must be a safe path segment"],
        "$.cases[1].id": ["cases[1].id must be unique"],
        "$.cases[1].prompt": ["cases[1].prompt must be a non-empty string"],
        "$.schemaVersion": ["schemaVersion must be 1"],
        "$.title": ["title must be a non-empty string"],
    }
    assert Benchmark.objects.count() == 0
    kept = InvalidUpload.objects.get()
    assert error["invalidUploadId"] == kept.pk
    assert kept.status == "pending"
    assert kept.kind == "manifest"
    assert kept.uploaded_by == owner
    assert [e["path"] for e in kept.errors] == [
        "$.benchmarkId",
        "$.cases[1].id",
        "$.cases[1].prompt",
        "$.schemaVersion",
        "$.title",
    ]


def test_red_team_pack_needs_its_flag(client: APIClient, settings: Any) -> None:
    red = manifest(
        "poison",
        benchmarkType="memory-red-team",
        attackClass="provenance-spoofing",
        targetSurface="trust-zone-promotion",
    )

    refused = client.post("/api/benchmarks/packs", red, format="json")
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True
    accepted = client.post("/api/benchmarks/packs", red, format="json")

    assert refused.status_code == 400
    assert error_fields(refused) == {
        "$.benchmarkType": [
            "memory-red-team benchmark packs require memoryRedTeamBenchEnabled"
        ]
    }
    assert accepted.status_code == 201
    assert accepted.json()["attackClass"] == "provenance-spoofing"
    assert accepted.json()["targetSurface"] == "trust-zone-promotion"


def test_red_team_pack_without_attack_class_is_400(
    client: APIClient, flags_on: Any
) -> None:
    red = manifest("poison", benchmarkType="memory-red-team")

    response = client.post("/api/benchmarks/packs", red, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.attackClass": ["attackClass must be a non-empty string"],
        "$.targetSurface": ["targetSurface must be a non-empty string"],
    }


def test_zip_pack_keeps_its_extra_files(client: APIClient) -> None:
    data = zip_bytes(
        {
            "pack/manifest.json": json.dumps(manifest()).encode(),
            "pack/fixtures/case-0.txt": b"fixture",
        }
    )

    response = upload(client, "pack.zip", data)

    assert response.status_code == 201
    assert response.json()["files"] == ["fixtures/case-0.txt"]
    assert pack_file_contents(benchmark=Benchmark.objects.get()) == {
        "fixtures/case-0.txt": b"fixture"
    }


def test_tar_gz_pack_is_accepted(client: APIClient) -> None:
    data = tar_bytes({"manifest.json": json.dumps(manifest()).encode()})

    response = upload(client, "pack.tar.gz", data)

    assert response.status_code == 201
    assert response.json()["benchmarkId"] == "ama-memory"


def test_manifest_file_upload_is_accepted(client: APIClient) -> None:
    response = upload(client, "manifest.json", json.dumps(manifest()).encode())

    assert response.status_code == 201


@pytest.mark.parametrize(
    ("files", "code"),
    [
        ({"../evil.json": b"{}", "manifest.json": b"{}"}, "parent_reference"),
        ({"/etc/evil": b"x", "manifest.json": b"{}"}, "absolute_path"),
    ],
)
def test_unsafe_zip_is_refused_and_nothing_kept(
    client: APIClient, files: dict[str, bytes], code: str
) -> None:
    response = upload(client, "evil.zip", zip_bytes(files))

    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert Benchmark.objects.count() == 0
    assert InvalidUpload.objects.count() == 0


def test_tar_with_a_huge_pax_header_is_refused_cheaply(client: APIClient) -> None:
    size = 256 << 20
    data = huge_extension(b"x", size)
    assert len(data) < 400_000

    tracemalloc.start()
    try:
        response = upload(client, "bomb.tar.gz", data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "header_too_large",
        "message": (
            f"bomb.tar.gz: a PAX header of {size} bytes exceeds the 65536-byte limit"
        ),
        "fields": [],
        "reason": "header_too_large",
        "member": None,
    }
    assert peak < 16 << 20
    assert Benchmark.objects.count() == 0
    assert InvalidUpload.objects.count() == 0


def test_tar_with_a_link_is_refused(client: APIClient) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo("manifest.json")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        archive.addfile(link)

    response = upload(client, "evil.tar.gz", buffer.getvalue())

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "link"
    assert error["message"] == "evil.tar.gz: member 'manifest.json' is a link"
    assert Benchmark.objects.count() == 0


def test_zip_bomb_is_refused(client: APIClient) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", b"{}")
        archive.writestr("big.txt", b"0" * (8 * 1024 * 1024))

    response = upload(client, "bomb.zip", buffer.getvalue())

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "compression_ratio"
    assert Benchmark.objects.count() == 0


def test_archive_without_manifest_is_kept_for_review(client: APIClient) -> None:
    response = upload(client, "empty.zip", zip_bytes({"readme.txt": b"hi"}))

    assert response.status_code == 400
    assert error_fields(response) == {
        "$": ["benchmark pack must contain a root manifest.json"]
    }
    kept = InvalidUpload.objects.get()
    assert kept.filename == "empty.zip"
    assert kept.raw == ""


def test_non_json_manifest_file_is_kept_with_its_text(client: APIClient) -> None:
    response = upload(client, "manifest.json", b"{not json")

    assert response.status_code == 400
    assert list(error_fields(response)) == ["$"]
    assert InvalidUpload.objects.get().raw == "{not json"


def test_upload_without_file_is_400(client: APIClient) -> None:
    response = client.post("/api/benchmarks/packs", {}, format="multipart")

    assert response.status_code == 400
    assert error_fields(response) == {"$.file": ["a pack file is required."]}


def test_upload_over_the_body_limit_is_413(client: APIClient, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024

    response = upload(client, "big.zip", b"PK\x03\x04" + b"0" * 2000)

    assert response.status_code == 413
    assert InvalidUpload.objects.count() == 0


def test_pack_list_filters_by_kind_and_tag(client: APIClient, pack: Benchmark) -> None:
    Benchmark.objects.create(
        benchmark_id="smoke", kind="suite", title="smoke", tags=["suite"]
    )

    everything = client.get("/api/benchmarks/packs").json()
    packs = client.get("/api/benchmarks/packs?kind=pack").json()
    tagged = client.get("/api/benchmarks/packs?tag=suite").json()
    bad = client.get("/api/benchmarks/packs?kind=nope")

    assert [b["benchmarkId"] for b in everything["results"]] == ["ama-memory", "smoke"]
    assert everything["count"] == 2
    assert [b["benchmarkId"] for b in packs["results"]] == ["ama-memory"]
    assert [b["benchmarkId"] for b in tagged["results"]] == ["smoke"]
    assert bad.status_code == 400


def test_pack_detail_and_404(client: APIClient, pack: Benchmark) -> None:
    found = client.get("/api/benchmarks/packs/ama-memory")
    missing = client.get("/api/benchmarks/packs/nope")

    assert found.json()["manifest"] == manifest()
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"


def test_multipart_force_field_replaces_a_pack(
    staff_api: APIClient, pack: Benchmark
) -> None:
    changed = json.dumps(manifest(cases=3)).encode()

    refused = upload(staff_api, "manifest.json", changed)
    forced = upload(staff_api, "manifest.json", changed, force="true")

    assert refused.status_code == 409
    assert forced.status_code == 200
    assert forced.json()["outcome"] == "replaced"


def test_a_force_key_in_a_json_manifest_is_a_problem_not_a_flag(
    client: APIClient, pack: Benchmark
) -> None:
    response = client.post(
        "/api/benchmarks/packs", {**manifest(cases=3), "force": True}, format="json"
    )

    # Unknown top-level manifest fields are kept (forward compatible), but a
    # "force" among them is data, never the replace flag: the pack exists.
    assert response.status_code == 409
    assert Benchmark.objects.get().case_count == 2
