"""evals.core.store_staging: a store is written beside its target and moved
into place only once all of it was written (no database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.core.store import TMP_MARKER
from evals.core.store_staging import publish, staging_folder


def tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def write(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def test_the_staging_folder_is_beside_the_target_and_removed_afterwards(
    tmp_path: Path,
) -> None:
    root = tmp_path / "store"
    with staging_folder(root) as staging:
        assert staging.parent == tmp_path
        assert staging.name.startswith(".store.export")
        assert staging.name.endswith(TMP_MARKER)
        write(staging, {"runs/r1.json": b"{}"})
    assert not staging.exists()
    assert list(tmp_path.iterdir()) == []


def test_a_failure_while_writing_leaves_the_target_as_it_was(tmp_path: Path) -> None:
    root = tmp_path / "store"
    write(root, {"runs/old.json": b"old"})

    def export() -> None:
        with staging_folder(root) as staging:
            write(staging, {"runs/new.json": b"new"})
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        export()
    assert tree(root) == {"runs/old.json": b"old"}
    assert [p.name for p in tmp_path.iterdir()] == ["store"]


def test_publishing_into_a_missing_target_moves_the_whole_folder(
    tmp_path: Path,
) -> None:
    root = tmp_path / "store"
    with staging_folder(root) as staging:
        write(staging, {"runs/r1.json": b"1", "benchmarks/ama/manifest.json": b"m"})
        publish(staging, root)
    assert tree(root) == {"benchmarks/ama/manifest.json": b"m", "runs/r1.json": b"1"}


def test_publishing_replaces_pack_folders_whole_and_files_one_by_one(
    tmp_path: Path,
) -> None:
    root = tmp_path / "store"
    write(
        root,
        {
            "benchmarks/ama/manifest.json": b"old manifest",
            "benchmarks/ama/data/stale.bin": b"stale",
            "benchmarks/kept/manifest.json": b"kept",
            "runs/r1.json": b"old run",
            "runs/other.json": b"other",
            "notes.txt": b"mine",
        },
    )
    with staging_folder(root) as staging:
        write(
            staging,
            {
                "benchmarks/ama/manifest.json": b"new manifest",
                "runs/r1.json": b"new run",
            },
        )
        publish(staging, root)
    assert tree(root) == {
        "benchmarks/ama/manifest.json": b"new manifest",
        "benchmarks/kept/manifest.json": b"kept",
        "notes.txt": b"mine",
        "runs/other.json": b"other",
        "runs/r1.json": b"new run",
    }
    assert [p.name for p in tmp_path.iterdir()] == ["store"]
