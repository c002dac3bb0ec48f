"""eval_store_export: the database as an on-disk eval store
(evals.services.store_export)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evals.core.store import store_json_bytes
from evals.models import (
    PackFile,
    Run,
)
from tests.evals.services.store_support import (
    fill_all_kinds,
    run_summary,
    store_flags_on,
    tree,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def flags_on(settings: Any) -> Any:
    return store_flags_on(settings)


@pytest.fixture
def filled(flags_on: Any) -> None:
    fill_all_kinds()


def test_export_writes_canonical_store_files(filled: None, tmp_path: Path) -> None:
    out = io.StringIO()
    call_command("eval_store_export", str(tmp_path), stdout=out)

    run = run_summary(
        "r2",
        "poison",
        10,
    )
    assert (tmp_path / "runs" / "r2.json").read_bytes() == store_json_bytes(
        {**run, "metrics": {"actionOutcomeScore": 0.333333333333, "zeta": 1}}
    )
    assert out.getvalue() == (
        f"exported to {tmp_path}: 2 benchmark pack(s), 3 run(s), 2 shadow "
        "record(s), 1 baseline snapshot(s)\n"
    )


def test_export_defaults_to_eval_store_dir(
    filled: None, settings: Any, tmp_path: Path
) -> None:
    settings.EVAL_STORE_DIR = tmp_path / "store"

    call_command("eval_store_export", stdout=io.StringIO())

    assert (tmp_path / "store" / "runs" / "r1.json").is_file()


def test_failed_export_leaves_the_target_as_it_was(
    filled: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "store"
    call_command("eval_store_export", str(target), stdout=io.StringIO())
    (target / "notes.txt").write_text("mine")
    before = tree(target)
    Run.objects.filter(run_id="r1").update(
        summary={**Run.objects.get(run_id="r1").summary, "notes": "changed"}
    )

    def disk_full(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    # Fails after packs and runs were written, before the baselines.
    monkeypatch.setattr("evals.core.store_writer.EvalStore.write_baseline", disk_full)
    with pytest.raises(CommandError) as caught:
        call_command("eval_store_export", str(target), stdout=io.StringIO())

    assert str(caught.value) == (
        f"export to {target} failed and wrote nothing: "
        "[Errno 28] No space left on device"
    )
    assert tree(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_export_skips_a_pack_whose_file_name_cannot_be_written(
    filled: None, tmp_path: Path
) -> None:
    long_name = "n" * 300 + ".txt"
    PackFile.objects.filter(benchmark__benchmark_id="ama").update(path=long_name)
    err = io.StringIO()

    call_command("eval_store_export", str(tmp_path), stdout=io.StringIO(), stderr=err)

    assert not (tmp_path / "benchmarks" / "ama").exists()
    assert (tmp_path / "benchmarks" / "poison" / "manifest.json").is_file()
    assert err.getvalue().splitlines()[0] == (
        "skipped (invalid in the database): benchmarks/ama/manifest.json"
    )
    assert "has a component longer than 255 bytes" in err.getvalue()
