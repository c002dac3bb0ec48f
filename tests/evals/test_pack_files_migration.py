"""The migrations of stored packs: every base64 extra file of a pack or a
kept upload becomes a file in the pack file store and a ``PackFile`` row with
its size and digest (going back restores them); kept uploads count their
errors in a column."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from core.canonical import digest

BEFORE = [("evals", "0004_run_idempotency_key")]
AFTER = [("evals", "0005_pack_files_on_disk")]


def migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture(autouse=True)
def _latest_schema_after() -> Any:
    """Each test ends on the latest migrations of every app: a later test
    (in this process) must not find a column of a newer migration missing."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_migration_moves_base64_pack_files_to_the_store_and_back() -> None:
    old = migrate(BEFORE)
    files = {"data/a.bin": b"\x00\x01" * 1000, "notes.txt": b"note"}
    encoded = {path: base64.b64encode(data).decode() for path, data in files.items()}
    pack = old.get_model("evals", "Benchmark").objects.create(
        benchmark_id="ama", kind="pack", title="t", pack_files=encoded
    )
    upload = old.get_model("evals", "InvalidUpload").objects.create(
        kind="manifest", raw="{}", pack_files={"x.txt": base64.b64encode(b"x").decode()}
    )
    old.get_model("evals", "Benchmark").objects.create(
        benchmark_id="suite", kind="suite", title="s"
    )

    new = migrate(AFTER)

    rows = new.get_model("evals", "PackFile").objects.order_by("path")
    sha = {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}
    assert [(r.benchmark_id, r.upload_id, r.path, r.size, r.sha256) for r in rows] == [
        (pack.pk, None, "data/a.bin", 2000, sha["data/a.bin"]),
        (pack.pk, None, "notes.txt", 4, sha["notes.txt"]),
        (None, upload.pk, "x.txt", 1, hashlib.sha256(b"x").hexdigest()),
    ]
    benchmarks = new.get_model("evals", "Benchmark").objects
    assert benchmarks.get(pk=pack.pk).files_digest == digest(sha)
    assert benchmarks.get(benchmark_id="suite").files_digest == ""
    from evals.services.pack_files import pack_store

    assert pack_store().read(sha["data/a.bin"]) == files["data/a.bin"]

    back = migrate(BEFORE)

    restored = back.get_model("evals", "Benchmark").objects.get(pk=pack.pk)
    assert restored.pack_files == encoded
    kept = back.get_model("evals", "InvalidUpload").objects.get(pk=upload.pk)
    assert kept.pack_files == {"x.txt": "eA=="}
    migrate(AFTER)


@pytest.mark.django_db(transaction=True)
def test_migration_counts_the_errors_of_kept_uploads() -> None:
    old = migrate(AFTER)
    upload = old.get_model("evals", "InvalidUpload").objects.create(
        kind="manifest", raw="{}", errors=[{"path": "$"}, {"path": "$.title"}]
    )

    new = migrate([("evals", "0006_invalid_upload_error_count")])

    counted = new.get_model("evals", "InvalidUpload").objects.get(pk=upload.pk)
    assert counted.error_count == 2
