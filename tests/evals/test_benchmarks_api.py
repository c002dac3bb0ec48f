"""REST API of seed 002: /api/benchmarks/{packs,runs,shadow,baselines,gate}."""

from __future__ import annotations

import copy
import io
import json
import tarfile
import tracemalloc
import zipfile
from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.models import (
    BaselineSnapshot,
    Benchmark,
    CaseResult,
    InvalidUpload,
    Run,
    ShadowRecord,
)
from tests.api_errors import error_fields
from tests.hostile import huge_extension

pytestmark = pytest.mark.django_db


def manifest(benchmark_id: str = "ama-memory", cases: int = 2, **extra: Any) -> dict:
    return {
        "schemaVersion": 1,
        "benchmarkId": benchmark_id,
        "title": f"{benchmark_id} title",
        "tags": ["trajectory"],
        "cases": [{"id": f"case-{n}", "prompt": f"prompt {n}"} for n in range(cases)],
        **extra,
    }


def run_summary(
    run_id: str,
    *,
    benchmark_id: str = "ama-memory",
    passed: int = 1,
    total: int = 2,
    hour: int = 10,
    metrics: dict[str, float] | None = None,
    **extra: Any,
) -> dict:
    document = {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": benchmark_id,
        "status": "completed",
        "startedAt": f"2026-03-06T{hour:02d}:00:00.000Z",
        "completedAt": f"2026-03-06T{hour:02d}:02:00.000Z",
        "totalCases": total,
        "passedCases": passed,
        "failedCases": total - passed,
        **extra,
    }
    if metrics is not None:
        document["metrics"] = metrics
    return document


def shadow(trace_id: str, **extra: Any) -> dict:
    return {
        "schemaVersion": 1,
        "traceId": trace_id,
        "recordedAt": "2026-03-06T10:03:00.000Z",
        "sessionKey": "agent:main",
        "promptHash": "abc123",
        "promptLength": 42,
        "retrievalQueryHash": "def456",
        "retrievalQueryLength": 42,
        "recallMode": "full",
        "recallResultLimit": 4,
        "source": "hot_qmd",
        "recalledMemoryCount": 2,
        "injected": True,
        "contextChars": 240,
        "memoryIds": ["mem-1", "mem-2"],
        "durationMs": 22,
        **extra,
    }


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


@pytest.fixture
def client(owner: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(owner)
    return api


@pytest.fixture
def staff_api(staff: Any) -> APIClient:
    """Storing baselines and replacing packs need staff (or a key's scope;
    tests/evalsite/test_authorization.py covers who may do what)."""
    api = APIClient()
    api.force_authenticate(staff)
    return api


@pytest.fixture
def flags_on(settings: Any) -> Any:
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = True
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True
    return settings


@pytest.fixture
def pack(client: APIClient) -> Benchmark:
    response = client.post("/api/benchmarks/packs", manifest(), format="json")
    assert response.status_code == 201
    return Benchmark.objects.get(benchmark_id="ama-memory")


# --- authentication ---------------------------------------------------------------


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


# --- packs ----------------------------------------------------------------------


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
    assert Benchmark.objects.get().pack_files == {"fixtures/case-0.txt": "Zml4dHVyZQ=="}


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


# --- runs -----------------------------------------------------------------------


def test_run_with_case_results_is_recorded(
    client: APIClient, pack: Benchmark, owner: Any, log_lines: Any
) -> None:
    document = run_summary(
        "run-1",
        metrics={"actionOutcomeScore": 0.8, "customScore": 3},
        caseResults=[
            {"caseId": "case-0", "passed": True, "durationMs": 12},
            {"caseId": "case-1", "passed": False, "notes": "missed the owner"},
        ],
    )

    response = client.post("/api/benchmarks/runs", document, format="json")

    assert response.status_code == 201
    body = response.json()
    assert body["created"] is True
    assert body["summary"] == document
    assert body["passRate"] == 0.5
    assert body["source"] == "api"
    assert body["caseResults"] == [
        {"caseId": "case-0", "passed": True, "durationMs": 12},
        {"caseId": "case-1", "passed": False, "notes": "missed the owner"},
    ]
    run = Run.objects.get()
    assert run.created_by == owner
    assert run.metrics == {"actionOutcomeScore": 0.8, "customScore": 3}
    assert list(
        CaseResult.objects.values_list("case_id", "passed", "latency_ms", "error")
    ) == [("case-0", True, 12.0, ""), ("case-1", False, None, "missed the owner")]
    assert log_lines("[Eval] benchmark_run") == [
        "[Eval] benchmark_run_recorded run_id=run-1 benchmark_id=ama-memory "
        "status=completed source=api passed=1 total=2"
    ]


def test_same_run_again_is_a_no_op_200(client: APIClient, pack: Benchmark) -> None:
    client.post("/api/benchmarks/runs", run_summary("run-1"), format="json")

    again = client.post("/api/benchmarks/runs", run_summary("run-1"), format="json")

    assert again.status_code == 200
    assert again.json()["created"] is False
    assert Run.objects.count() == 1


def test_other_content_for_a_run_id_is_409(client: APIClient, pack: Benchmark) -> None:
    client.post("/api/benchmarks/runs", run_summary("run-1"), format="json")

    response = client.post(
        "/api/benchmarks/runs", run_summary("run-1", passed=2), format="json"
    )

    assert response.status_code == 409
    assert response.json()["error"]["message"] == (
        "run run-1 already exists with different content"
    )
    assert Run.objects.get().passed_cases == 1


def test_invalid_run_is_400_with_every_path_and_nothing_written(
    client: APIClient, pack: Benchmark
) -> None:
    document = run_summary("run-1")
    document.update(status="done", totalCases=-1, metrics={"x": "high"})
    del document["startedAt"]

    response = client.post("/api/benchmarks/runs", document, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.metrics.x": ["metrics.x must be a finite number"],
        "$.startedAt": ["startedAt must be a non-empty string"],
        "$.status": ["status must be one of running|completed|failed|partial"],
        "$.totalCases": ["totalCases must be a non-negative number"],
    }
    assert Run.objects.count() == 0
    assert InvalidUpload.objects.count() == 0


def test_run_of_unknown_benchmark_is_400(client: APIClient) -> None:
    response = client.post(
        "/api/benchmarks/runs", run_summary("run-1", benchmark_id="nope"), format="json"
    )

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.benchmarkId": [
            "benchmarkId must name a known benchmark (upload its pack first): nope"
        ]
    }


def test_case_results_must_agree_with_counts(
    client: APIClient, pack: Benchmark
) -> None:
    document = run_summary("run-1", caseResults=[{"caseId": "case-0", "passed": True}])

    response = client.post("/api/benchmarks/runs", document, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.caseResults": ["caseResults must agree with passedCases and failedCases"]
    }
    assert CaseResult.objects.count() == 0


def test_run_list_and_detail(client: APIClient, pack: Benchmark) -> None:
    client.post("/api/benchmarks/runs", run_summary("run-1", hour=9), format="json")
    client.post("/api/benchmarks/runs", run_summary("run-2", hour=11), format="json")

    listed = client.get("/api/benchmarks/runs?benchmark=ama-memory").json()
    detail = client.get("/api/benchmarks/runs/run-1").json()
    missing = client.get("/api/benchmarks/runs/nope")

    assert [r["runId"] for r in listed["results"]] == ["run-2", "run-1"]
    assert detail["summary"] == run_summary("run-1", hour=9)
    assert missing.status_code == 404


# --- shadow records ----------------------------------------------------------------


def test_shadow_mode_off_is_409_and_nothing_written(client: APIClient) -> None:
    response = client.post("/api/benchmarks/shadow", shadow("t1"), format="json")

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "feature_disabled"
    assert error["message"] == "eval shadow mode is disabled"
    assert error["settings"] == ["EVAL_HARNESS_ENABLED", "EVAL_SHADOW_MODE_ENABLED"]
    assert ShadowRecord.objects.count() == 0


def test_shadow_needs_the_harness_flag_too(client: APIClient, settings: Any) -> None:
    settings.EVAL_SHADOW_MODE_ENABLED = True

    response = client.post("/api/benchmarks/shadow", shadow("t1"), format="json")

    assert response.status_code == 409
    assert response.json()["error"]["settings"] == ["EVAL_HARNESS_ENABLED"]


def test_single_shadow_record_is_stored(
    client: APIClient, flags_on: Any, log_lines: Any
) -> None:
    response = client.post("/api/benchmarks/shadow", shadow("t1"), format="json")

    assert response.status_code == 201
    assert response.json() == {"created": 1, "unchanged": 0, "traceIds": ["t1"]}
    record = ShadowRecord.objects.get()
    assert record.document == shadow("t1")
    assert str(record.day) == "2026-03-06"
    assert log_lines("[Eval] shadow") == [
        "[Eval] shadow_records_ingested created=1 unchanged=0"
    ]


def test_shadow_batch_is_stored_and_idempotent(
    client: APIClient, flags_on: Any
) -> None:
    batch = {"records": [shadow("t1"), shadow("t2"), shadow("t3")]}

    first = client.post("/api/benchmarks/shadow", batch, format="json")
    again = client.post("/api/benchmarks/shadow", batch, format="json")

    assert first.status_code == 201
    assert first.json()["created"] == 3
    assert again.status_code == 200
    assert again.json() == {
        "created": 0,
        "unchanged": 3,
        "traceIds": ["t1", "t2", "t3"],
    }
    assert ShadowRecord.objects.count() == 3


def test_invalid_record_in_a_batch_writes_nothing(
    client: APIClient, flags_on: Any
) -> None:
    batch = {
        "records": [
            shadow("t1"),
            shadow("t2", recallMode="everything", durationMs=-1),
            shadow("t3", prompt="the raw prompt text"),
        ]
    }

    response = client.post("/api/benchmarks/shadow", batch, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.records[1].durationMs": ["durationMs must be a non-negative number"],
        "$.records[1].recallMode": [
            "recallMode must be one of no_recall|minimal|full|graph_mode"
        ],
        "$.records[2].prompt": ["unknown property: prompt"],
    }
    assert ShadowRecord.objects.count() == 0


def test_shadow_conflict_is_409(client: APIClient, flags_on: Any) -> None:
    client.post("/api/benchmarks/shadow", shadow("t1"), format="json")

    response = client.post(
        "/api/benchmarks/shadow",
        {"records": [shadow("t2"), shadow("t1", durationMs=99)]},
        format="json",
    )

    assert response.status_code == 409
    assert response.json()["error"]["traceIds"] == ["t1"]
    assert ShadowRecord.objects.count() == 1


def test_shadow_batch_shape_errors(client: APIClient, flags_on: Any) -> None:
    not_list = client.post("/api/benchmarks/shadow", {"records": {}}, format="json")
    empty = client.post("/api/benchmarks/shadow", {"records": []}, format="json")
    extra = client.post(
        "/api/benchmarks/shadow", {"records": [], "x": 1}, format="json"
    )

    assert error_fields(not_list) == {
        "$.records": ["records must be a non-empty array"]
    }
    assert error_fields(empty) == {"$.records": ["records must be a non-empty array"]}
    assert error_fields(extra) == {"$.x": ["unknown property: x"]}


def test_shadow_list_and_detail(client: APIClient, flags_on: Any) -> None:
    client.post(
        "/api/benchmarks/shadow",
        {"records": [shadow("t1"), shadow("t2", recordedAt="2026-03-07T00:00:00Z")]},
        format="json",
    )

    day = client.get("/api/benchmarks/shadow?day=2026-03-06").json()
    detail = client.get("/api/benchmarks/shadow/t2")
    bad_day = client.get("/api/benchmarks/shadow?day=yesterday")

    assert [r["traceId"] for r in day["results"]] == ["t1"]
    assert detail.json()["recordedAt"] == "2026-03-07T00:00:00Z"
    assert bad_day.status_code == 400


# --- baselines -------------------------------------------------------------------


def snapshot_document(**extra: Any) -> dict:
    return {
        "schemaVersion": 1,
        "snapshotId": "required-main",
        "createdAt": "2026-03-06T12:00:00.000Z",
        "sourceRootDir": "ci",
        "benchmarkCount": 1,
        "benchmarks": [
            {"benchmarkId": "ama-memory", "runId": "run-1", "passRate": 0.5}
        ],
        **extra,
    }


def test_snapshots_off_is_409(client: APIClient) -> None:
    for body in ({"snapshotId": "required-main"}, snapshot_document()):
        response = client.post("/api/benchmarks/baselines", body, format="json")

        assert response.status_code == 409
        assert response.json()["error"]["message"] == (
            "benchmark baseline snapshots are disabled"
        )
    assert BaselineSnapshot.objects.count() == 0


def test_snapshot_from_latest_runs(
    staff_api: APIClient, flags_on: Any, pack: Benchmark, log_lines: Any
) -> None:
    staff_api.post(
        "/api/benchmarks/runs",
        run_summary("run-1", hour=9, metrics={"actionOutcomeScore": 0.5}),
        format="json",
    )
    staff_api.post("/api/benchmarks/runs", run_summary("run-2", hour=11), format="json")
    staff_api.post(
        "/api/benchmarks/runs",
        run_summary("run-3", hour=12, status="failed"),
        format="json",
    )

    response = staff_api.post(
        "/api/benchmarks/baselines",
        {"snapshotId": "required-main", "notes": "main"},
        format="json",
    )

    assert response.status_code == 201
    document = response.json()["document"]
    assert document["benchmarks"] == [
        {
            "benchmarkId": "ama-memory",
            "runId": "run-2",
            "completedAt": "2026-03-06T11:02:00.000Z",
            "passRate": 0.5,
            "totalCases": 2,
        }
    ]
    assert document["notes"] == "main"
    assert document["sourceRootDir"] == "database"
    assert log_lines("[Eval] baseline") == [
        "[Eval] baseline_snapshot_saved snapshot_id=required-main benchmark_count=1 "
        "outcome=created"
    ]


def test_snapshot_from_latest_replaces_the_named_one(
    staff_api: APIClient, flags_on: Any, pack: Benchmark
) -> None:
    staff_api.post("/api/benchmarks/runs", run_summary("run-1", hour=9), format="json")
    staff_api.post(
        "/api/benchmarks/baselines", {"snapshotId": "required-main"}, format="json"
    )
    staff_api.post("/api/benchmarks/runs", run_summary("run-2", hour=11), format="json")

    response = staff_api.post(
        "/api/benchmarks/baselines", {"snapshotId": "required-main"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["outcome"] == "replaced"
    row = BaselineSnapshot.objects.get()
    assert row.document["benchmarks"][0]["runId"] == "run-2"


def test_snapshot_id_must_be_safe(staff_api: APIClient, flags_on: Any) -> None:
    response = staff_api.post(
        "/api/benchmarks/baselines", {"snapshotId": "a/b"}, format="json"
    )

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.snapshotId": ["snapshotId must be a safe path segment"]
    }


def test_snapshot_document_is_stored_idempotently(
    staff_api: APIClient, flags_on: Any
) -> None:
    first = staff_api.post(
        "/api/benchmarks/baselines", snapshot_document(), format="json"
    )
    again = staff_api.post(
        "/api/benchmarks/baselines", snapshot_document(), format="json"
    )
    other = staff_api.post(
        "/api/benchmarks/baselines", snapshot_document(notes="x"), format="json"
    )

    assert first.status_code == 201
    assert first.json()["document"] == snapshot_document()
    assert again.status_code == 200
    assert again.json()["outcome"] == "unchanged"
    assert other.status_code == 409
    assert BaselineSnapshot.objects.get().notes == ""


def test_invalid_snapshot_document_is_400(staff_api: APIClient, flags_on: Any) -> None:
    document = snapshot_document(benchmarkCount=2)
    document["benchmarks"][0]["passRate"] = 1.5

    response = staff_api.post("/api/benchmarks/baselines", document, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.benchmarkCount": ["benchmarkCount must match benchmarks.length"],
        "$.benchmarks[0].passRate": [
            "benchmarks[0].passRate must be a number between 0 and 1"
        ],
    }
    assert BaselineSnapshot.objects.count() == 0


def test_baseline_list_and_detail(staff_api: APIClient, flags_on: Any) -> None:
    staff_api.post("/api/benchmarks/baselines", snapshot_document(), format="json")

    listed = staff_api.get("/api/benchmarks/baselines").json()
    detail = staff_api.get("/api/benchmarks/baselines/required-main").json()
    missing = staff_api.get("/api/benchmarks/baselines/nope")

    assert listed["count"] == 1
    assert listed["results"][0]["snapshotId"] == "required-main"
    assert listed["results"][0]["benchmarkCount"] == 1
    assert detail["document"] == snapshot_document()
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == (
        "benchmark baseline snapshot not found: nope"
    )


# --- the gate --------------------------------------------------------------------


@pytest.fixture
def baseline(staff_api: APIClient, flags_on: Any, pack: Benchmark) -> None:
    staff_api.post(
        "/api/benchmarks/packs", manifest("other-pack", cases=1), format="json"
    )
    for document in (
        run_summary("base-1", passed=1, metrics={"actionOutcomeScore": 0.5}, hour=9),
        run_summary("base-2", benchmark_id="other-pack", passed=1, total=1, hour=9),
    ):
        response = staff_api.post("/api/benchmarks/runs", document, format="json")
        assert response.status_code == 201
    response = staff_api.post(
        "/api/benchmarks/baselines", {"snapshotId": "required-main"}, format="json"
    )
    assert response.status_code == 201


def test_gate_off_is_409(client: APIClient) -> None:
    response = client.get("/api/benchmarks/gate?snapshot=required-main")

    assert response.status_code == 409
    assert response.json()["error"]["message"] == "benchmark delta reporter is disabled"


def test_gate_needs_a_snapshot(client: APIClient, flags_on: Any) -> None:
    missing = client.get("/api/benchmarks/gate")
    unknown = client.get("/api/benchmarks/gate?snapshot=nope")
    bad_min = client.get("/api/benchmarks/gate?snapshot=nope&minCases=0")

    assert missing.status_code == 400
    assert error_fields(missing) == {"?snapshot": ["snapshot is required."]}
    assert unknown.status_code == 404
    assert unknown.json()["error"]["message"] == (
        "benchmark baseline snapshot not found: nope"
    )
    assert bad_min.status_code == 400


def test_gate_passes_on_an_improvement(
    client: APIClient, baseline: None, log_lines: Any
) -> None:
    client.post(
        "/api/benchmarks/runs",
        run_summary("cand-1", passed=2, metrics={"actionOutcomeScore": 0.75}),
        format="json",
    )
    client.post(
        "/api/benchmarks/runs",
        run_summary("cand-2", benchmark_id="other-pack", passed=1, total=1),
        format="json",
    )

    verdict = client.get("/api/benchmarks/gate?snapshot=required-main").json()

    assert verdict["passed"] is True
    assert verdict["regressions"] == []
    assert verdict["improvements"] == [
        "ama-memory pass rate improved (0.5 -> 1)",
        "ama-memory actionOutcomeScore 0.5 -> 0.75",
    ]
    assert verdict["baselineResolvedFrom"] == "base"
    assert [d["candidateRunId"] for d in verdict["deltas"]] == ["cand-1", "cand-2"]
    assert verdict["markdown"].startswith(
        "# Eval Baseline Delta Report\n\n- Passed: yes\n"
    )
    assert log_lines("[Eval] ci_gate") == [
        "[Eval] ci_gate passed=true compared=2 regressions=0 improvements=2 missing=0"
    ]


def test_gate_fails_on_a_regression_and_a_missing_benchmark(
    client: APIClient, baseline: None
) -> None:
    # The only completed run of other-pack goes away (pruned).
    Run.objects.filter(run_id="base-2").delete()
    client.post(
        "/api/benchmarks/runs",
        run_summary(
            "cand-1",
            passed=0,
            metrics={"actionOutcomeScore": 0.25},
            caseResults=[
                {"caseId": "case-0", "passed": False},
                {"caseId": "case-1", "passed": False},
            ],
        ),
        format="json",
    )

    verdict = client.get("/api/benchmarks/gate?snapshot=required-main").json()

    assert verdict["passed"] is False
    assert verdict["regressions"] == [
        "candidate is missing latest completed benchmark run for other-pack",
        "ama-memory pass rate regressed (0.5 -> 0)",
        "ama-memory actionOutcomeScore 0.5 -> 0.25",
    ]
    assert verdict["missingCandidateBenchmarks"] == ["other-pack"]
    assert "## Regressions\n- candidate is missing" in verdict["markdown"]


def test_gate_min_cases_makes_small_benchmarks_inconclusive(
    client: APIClient, baseline: None
) -> None:
    client.post("/api/benchmarks/runs", run_summary("cand-1", passed=0), format="json")
    client.post(
        "/api/benchmarks/runs",
        run_summary("cand-2", benchmark_id="other-pack", passed=1, total=1),
        format="json",
    )

    verdict = client.get(
        "/api/benchmarks/gate?snapshot=required-main&minCases=5"
    ).json()

    assert verdict["passed"] is True
    assert verdict["inconclusiveBenchmarks"] == ["ama-memory", "other-pack"]


def test_gate_counts_an_invalid_latest_summary_as_invalid_candidate(
    client: APIClient, baseline: None
) -> None:
    run = Run.objects.get(run_id="base-1")
    broken = copy.deepcopy(run.summary)
    broken["totalCases"] = "two"
    Run.objects.filter(run_id="base-2").update(summary=broken)

    verdict = client.get("/api/benchmarks/gate?snapshot=required-main").json()

    assert verdict["passed"] is False
    assert (
        verdict["regressions"][0] == "candidate store has 1 invalid run summary file(s)"
    )


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
