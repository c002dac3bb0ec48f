"""A hostile-file corpus over every command that reads files, and the upload.

Each file (not UTF-8, BOM, UTF-16, raw NUL bytes, NUL and lone-surrogate
escapes, deep nesting, NaN, a 1 MB string, a 100,000-line suite, an empty
file, a 64-bit overflow) goes to every file-reading command and to the pack
upload. A command may succeed or refuse with its exit code and message; it
may never crash with a traceback, and a refusal writes nothing. The counts
go to the README's Reliability table (printed with ``-s``).
"""

from __future__ import annotations

import io
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from rest_framework.test import APIClient

from tests.hostile import hostile_files

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"
ALLOWED_WRITES = ("evals_invalidupload", "django_session", "auth_user")


class WriteWatch:
    def __init__(self) -> None:
        self.writes: list[str] = []

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any):
        head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
        if head in ("INSERT", "UPDATE", "DELETE") and not any(
            f'"{table}"' in sql for table in ALLOWED_WRITES
        ):
            self.writes.append(sql[:120])
        return execute(sql, params, many, context)


def store_with(root: Path, relative: str, content: bytes) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    target = root / relative
    target.parent.mkdir(parents=True)
    target.write_bytes(content)
    return root


def commands_for(tmp: Path, content: bytes) -> list[tuple[str, list[str]]]:
    """(label, call_command argv) reading ``content`` as each kind of file."""
    single = tmp / "hostile.json"
    single.write_bytes(content)
    suites = tmp / "suites"
    (suites / "hostile.jsonl").write_bytes(content)
    stores = [
        ("runs/r.json", "run"),
        ("shadow/2026-03-06/t.json", "shadow"),
        ("baselines/b.json", "baseline"),
        ("benchmarks/p/manifest.json", "manifest"),
    ]
    calls = [
        ("benchmark_validate", ["benchmark_validate", str(single)]),
        ("benchmark_import", ["benchmark_import", str(single)]),
        ("gridworld_verify", ["gridworld_verify", str(single)]),
        (
            "eval_run",
            [
                "eval_run",
                "--suite",
                "hostile",
                "--profile",
                "balanced",
                "--mode",
                "thought_only",
                "--model",
                "scripted",
            ],
        ),
    ]
    for relative, kind in stores:
        root = store_with(tmp / f"store-{kind}", relative, content)
        calls.append((f"eval_store_import {kind}", ["eval_store_import", str(root)]))
        gate = ["benchmark_ci_gate", "--base", str(root), "--candidate", str(root)]
        calls.append((f"benchmark_ci_gate {kind}", gate))
    return calls


def test_hostile_files_never_crash_a_command_or_the_upload(
    settings: Any, tmp_path: Path, staff: Any
) -> None:
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    shutil.copytree(SHIPPED, tmp_path / "suites")
    settings.EVALS_SUITES_DIR = tmp_path / "suites"
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(staff)
    tally: Counter[str] = Counter()
    failures: list[str] = []
    for label, content in hostile_files():
        calls = commands_for(tmp_path, content)
        for name, argv in calls:
            watch = WriteWatch()
            refused = False
            with connection.execute_wrapper(watch):
                try:
                    call_command(*argv, stdout=io.StringIO(), stderr=io.StringIO())
                except (CommandError, SystemExit) as exit_:
                    refused = (
                        getattr(exit_, "returncode", getattr(exit_, "code", 1)) != 0
                    )
                except Exception as error:  # noqa: BLE001 - every crash is listed
                    failures.append(
                        f"{name} {label}: {type(error).__name__}: {error}"[:300]
                    )
                    continue
            tally["tried"] += 1
            if refused:
                tally["refused"] += 1
                if watch.writes:
                    failures.append(f"{name} {label}: wrote {watch.writes[:2]}")
        upload = io.BytesIO(content)
        upload.name = "hostile.json"
        watch = WriteWatch()
        with connection.execute_wrapper(watch):
            response = client.post(
                "/api/benchmarks/packs", {"file": upload}, format="multipart"
            )
        tally["tried"] += 1
        if response.status_code >= 500:
            failures.append(f"upload {label}: {response.status_code}")
        elif response.status_code >= 400:
            tally["refused"] += 1
            if watch.writes:
                failures.append(f"upload {label}: wrote {watch.writes[:2]}")
    print(
        f"\nhostile files: {len(hostile_files())} files x "
        f"{len(calls) + 1} readers, {tally['tried']} tried, "
        f"{tally['refused']} refused, 0 crashes"
    )
    assert not failures, "\n".join(failures)
    assert tally["refused"] > tally["tried"] // 2
    assert json.dumps(dict(tally))
