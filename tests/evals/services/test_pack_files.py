"""Where stored packs live: their extra files in the pack file store (one file
per SHA-256), names, sizes and digests in ``PackFile`` rows; lists never read
a manifest, an upload's text or a file; an upload streams in bounded memory
and a failed one leaves neither rows nor files behind."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from evals.core.archive import ArchiveLimits
from evals.examples import example_manifest as manifest
from evals.models import Benchmark, InvalidUpload, PackFile
from evals.services.benchmarks import benchmark_pack_create
from evals.services.pack_files import pack_file_contents
from evals.services.pack_uploads import benchmark_pack_upload

pytestmark = pytest.mark.django_db

MIB = 1024 * 1024
LIST_PAGES = (
    "/",
    "/benchmarks/",
    "/api/benchmarks/packs",
    "/admin/evals/benchmark/",
    "/admin/evals/invalidupload/",
)


def tar_gz(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def big_file(seed: int, size: int) -> bytes:
    """``size`` bytes that deflate about 60x: 64 varying bytes per 4 KiB."""
    noise = hashlib.shake_256(seed.to_bytes(4, "big")).digest(size // 64)
    out = bytearray(size)
    for block in range(size // 4096):
        out[block * 4096 : block * 4096 + 64] = noise[block * 64 : block * 64 + 64]
    return bytes(out)


def maximal_pack(benchmark_id: str = "maximal") -> bytes:
    """4 files just under 16 MiB each: the limits' whole 64 MiB, ~1.2 MB packed."""
    size = ArchiveLimits().max_member_bytes - 4096
    return tar_gz(
        {
            "manifest.json": json.dumps(manifest(benchmark_id)).encode(),
            **{f"data/part-{n}.bin": big_file(n, size) for n in range(4)},
        }
    )


def store_tree() -> list[str]:
    root = Path(settings.PACK_FILES_DIR)
    if not root.exists():
        return []
    return sorted(
        path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()
    )


def upload(client: APIClient, name: str, data: bytes, **fields: Any) -> Any:
    file = io.BytesIO(data)
    file.name = name
    return client.post(
        "/api/benchmarks/packs", {"file": file, **fields}, format="multipart"
    )


def stored_packs(count: int, *, start: int = 0, user: Any = None) -> None:
    for n in range(start, start + count):
        benchmark_pack_create(
            document=manifest(f"pack-{n}"),
            extra_files={f"data/{n}.bin": bytes([n]) * 1000, "notes.txt": b"n"},
            user=user,
        )
        bad = manifest(f"bad-{n}")
        del bad["title"]
        with pytest.raises(Exception, match="invalid benchmark manifest"):
            benchmark_pack_create(
                document=bad,
                extra_files={"x.bin": b"x"},
                keep_invalid=True,
                user=user,
            )


def page_queries(client: Any) -> dict[str, list[str]]:
    out = {}
    for path in LIST_PAGES:
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
        assert response.status_code == 200, path
        out[path] = [query["sql"] for query in captured.captured_queries]
    return out


def test_list_pages_never_read_manifests_upload_text_or_pack_files(
    staff_client: Any,
) -> None:
    stored_packs(3)

    queries = page_queries(staff_client)

    for path, sqls in queries.items():
        for sql in sqls:
            assert '"evals_benchmark"."manifest"' not in sql, (path, sql)
            assert '"evals_invalidupload"."raw"' not in sql, (path, sql)
            assert '"evals_invalidupload"."errors"' not in sql, (path, sql)
            assert "evals_packfile" not in sql, (path, sql)


def test_admin_upload_list_shows_the_error_count_column(staff_client: Any) -> None:
    bad = manifest()
    del bad["title"]
    bad["cases"] = [{"id": "a"}, {"id": "b"}]
    with pytest.raises(Exception, match="invalid benchmark manifest"):
        benchmark_pack_create(document=bad, keep_invalid=True)
    kept = InvalidUpload.objects.get()

    response = staff_client.get("/admin/evals/invalidupload/")

    assert kept.error_count == len(kept.errors) == 3
    assert '<td class="field-error_count">3</td>' in response.content.decode()


def test_list_pages_make_as_many_queries_with_many_packs_as_with_one(
    staff_client: Any, owner: Any, staff: Any
) -> None:
    stored_packs(1, user=owner)
    one = {path: len(sqls) for path, sqls in page_queries(staff_client).items()}
    stored_packs(3, start=1, user=owner)
    stored_packs(3, start=4, user=staff)

    many = {path: len(sqls) for path, sqls in page_queries(staff_client).items()}

    assert many == one


def test_pack_files_are_stored_once_by_digest_and_listed_as_rows(
    client: APIClient,
) -> None:
    data = tar_gz(
        {
            "manifest.json": json.dumps(manifest()).encode(),
            "a.txt": b"same bytes",
            "b/c.txt": b"same bytes",
        }
    )

    response = upload(client, "pack.tar.gz", data)

    assert response.status_code == 201
    assert response.json()["files"] == ["a.txt", "b/c.txt"]
    digest = hashlib.sha256(b"same bytes").hexdigest()
    assert store_tree() == [f"{digest[:2]}/{digest}"]
    assert list(PackFile.objects.values_list("path", "size", "sha256")) == [
        ("a.txt", 10, digest),
        ("b/c.txt", 10, digest),
    ]
    assert pack_file_contents(benchmark=Benchmark.objects.get()) == {
        "a.txt": b"same bytes",
        "b/c.txt": b"same bytes",
    }


def test_maximal_pack_uploads_in_bounded_memory() -> None:
    data = maximal_pack()
    size = ArchiveLimits().max_member_bytes - 4096

    tracemalloc.start()
    try:
        result = benchmark_pack_upload(source=io.BytesIO(data), filename="max.tar.gz")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert result.outcome == "created"
    # 64 MiB of files; the upload itself is 1.2 MB and is read in 1 MiB chunks.
    assert peak < 8 * MIB, f"traced peak {peak / MIB:.1f} MiB"
    rows = list(PackFile.objects.values_list("path", "size"))
    assert rows == [(f"data/part-{n}.bin", size) for n in range(4)]
    assert len(store_tree()) == 4


def test_maximal_pack_upload_over_the_api_stays_bounded(client: APIClient) -> None:
    data = maximal_pack()
    # A first request loads what the request path imports lazily.
    small = tar_gz({"manifest.json": json.dumps(manifest("warm")).encode()})
    assert upload(client, "warm.tar.gz", small).status_code == 201

    tracemalloc.start()
    try:
        response = upload(client, "max.tar.gz", data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert response.status_code == 201
    assert peak < 16 * MIB, f"traced peak {peak / MIB:.1f} MiB"


def test_refused_archive_leaves_no_rows_and_no_files(client: APIClient) -> None:
    # The first member streams into the store before the link is seen.
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        body = json.dumps(manifest()).encode()
        info = tarfile.TarInfo("manifest.json")
        info.size = len(body)
        archive.addfile(info, io.BytesIO(body))
        info = tarfile.TarInfo("data.bin")
        info.size = 5
        archive.addfile(info, io.BytesIO(b"bytes"))
        link = tarfile.TarInfo("escape")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        archive.addfile(link)

    response = upload(client, "pack.tar.gz", buffer.getvalue())

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "link"
    assert store_tree() == []
    assert not Benchmark.objects.exists()
    assert not InvalidUpload.objects.exists()
    assert not PackFile.objects.exists()


def test_member_over_the_limit_mid_stream_leaves_no_partial_file(
    client: APIClient, settings: Any
) -> None:
    # A zip member whose header understates its size: refused on the bytes
    # read, half-way through writing it.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest()))
        archive.writestr("big.bin", big_file(1, 17 * MIB))
    data = bytearray(buffer.getvalue())
    # Patch the central directory's uncompressed size of big.bin to 1 MiB.
    entry = data.rfind(b"PK\x01\x02")
    data[entry + 24 : entry + 28] = (MIB).to_bytes(4, "little")

    response = upload(client, "pack.zip", bytes(data))

    assert response.status_code == 400
    assert response.json()["error"]["code"] in ("member_too_large", "corrupt_archive")
    assert store_tree() == []
    assert not PackFile.objects.exists()


def test_conflicting_upload_removes_the_files_it_stored(client: APIClient) -> None:
    first = tar_gz({"manifest.json": json.dumps(manifest()).encode(), "a": b"one"})
    assert upload(client, "one.tar.gz", first).status_code == 201
    before = store_tree()
    other = manifest()
    other["title"] = "another pack under the same id"
    second = tar_gz({"manifest.json": json.dumps(other).encode(), "a": b"two"})

    response = upload(client, "two.tar.gz", second)

    assert response.status_code == 409
    assert store_tree() == before
    assert PackFile.objects.count() == 1


def test_replacing_a_pack_removes_the_files_only_it_had(
    staff_api: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    first = tar_gz(
        {"manifest.json": json.dumps(manifest()).encode(), "a": b"old", "k": b"kept"}
    )
    assert upload(staff_api, "one.tar.gz", first).status_code == 201
    second = tar_gz(
        {"manifest.json": json.dumps(manifest()).encode(), "a": b"new", "k": b"kept"}
    )

    with django_capture_on_commit_callbacks(execute=True):
        response = upload(staff_api, "two.tar.gz", second, force="true")

    assert response.status_code == 200
    assert response.json()["outcome"] == "replaced"
    digests = {hashlib.sha256(b).hexdigest() for b in (b"new", b"kept")}
    assert store_tree() == sorted(f"{d[:2]}/{d}" for d in digests)


def test_invalid_archive_upload_keeps_its_files_for_review(client: APIClient) -> None:
    bad = manifest()
    del bad["title"]
    data = tar_gz({"manifest.json": json.dumps(bad).encode(), "n.txt": b"note"})

    response = upload(client, "bad.tar.gz", data)

    assert response.status_code == 400
    kept = InvalidUpload.objects.get()
    assert pack_file_contents(upload=kept) == {"n.txt": b"note"}
    # The manifest is the upload's text, not a stored file.
    assert len(store_tree()) == 1


def test_a_failed_upload_keeps_a_file_another_upload_stored_meanwhile() -> None:
    from evals.services.pack_files import PackFileWrites, pack_store

    failing = PackFileWrites()
    ref = failing.put_files({"a": b"shared bytes"})["a"]
    # Another upload stores the same bytes and has not committed its rows yet.
    other = PackFileWrites()
    assert other.put_files({"b": b"shared bytes"})["b"] == ref
    assert other.created == {}

    failing.__exit__(RuntimeError, RuntimeError("conflict"), None)

    assert pack_store().exists(ref.sha256)


def test_deleting_packs_in_the_admin_removes_the_files_only_they_had(
    staff_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    benchmark_pack_create(
        document=manifest("one"), extra_files={"a": b"only one", "s": b"shared"}
    )
    benchmark_pack_create(document=manifest("two"), extra_files={"s": b"shared"})
    one = Benchmark.objects.get(benchmark_id="one")

    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            "/admin/evals/benchmark/",
            {"action": "delete_selected", "_selected_action": [one.pk], "post": "yes"},
        )

    assert response.status_code == 302
    shared = hashlib.sha256(b"shared").hexdigest()
    assert store_tree() == [f"{shared[:2]}/{shared}"]


def test_deleting_an_upload_in_the_admin_removes_its_files(
    staff_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    bad = manifest()
    del bad["title"]
    with pytest.raises(Exception, match="invalid benchmark manifest"):
        benchmark_pack_create(document=bad, extra_files={"x": b"x"}, keep_invalid=True)
    kept = InvalidUpload.objects.get()

    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            f"/admin/evals/invalidupload/{kept.pk}/delete/", {"post": "yes"}
        )

    assert response.status_code == 302
    assert store_tree() == []
    assert not PackFile.objects.exists()
