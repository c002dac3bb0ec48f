"""Writing a whole eval store next to its target, then moving it into place.

An export writes every document into a fresh staging folder beside the
target root; only when all of it was written does ``publish`` move the
files into the root. A failure while writing (an unwritable name, a full
disk, a document that no longer validates) therefore leaves the root as it
was, and the staging folder is removed.

Publishing replaces each pack folder (``benchmarks/<id>/``) as a whole and
each document file on its own with ``os.replace``; files of other names
already in the root are left alone. Reads and writes only the two folders
it is given.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evals.core.store import TMP_MARKER, StoreKind


@contextmanager
def staging_folder(root: Path) -> Iterator[Path]:
    """A new empty folder beside ``root``, removed on leaving the block."""
    target = Path(root).absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(
        tempfile.mkdtemp(
            dir=target.parent, prefix=f".{target.name}.export", suffix=TMP_MARKER
        )
    )
    try:
        yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _replace_folder(source: Path, target: Path) -> None:
    retired = target.with_name(f".{target.name}.old{TMP_MARKER}")
    if retired.exists():
        shutil.rmtree(retired)
    if target.exists() or target.is_symlink():
        target.rename(retired)
    source.rename(target)
    shutil.rmtree(retired, ignore_errors=True)


def publish(staging: Path, root: Path) -> None:
    """Move everything written under ``staging`` into ``root``."""
    target = Path(root).absolute()
    if not target.exists():
        staging.rename(target)
        return
    packs = staging / StoreKind.BENCHMARKS.value
    if packs.is_dir():
        (target / StoreKind.BENCHMARKS.value).mkdir(parents=True, exist_ok=True)
        for folder in sorted(packs.iterdir()):
            _replace_folder(folder, target / StoreKind.BENCHMARKS.value / folder.name)
    for directory, _, names in sorted(os.walk(staging)):
        relative = Path(directory).relative_to(staging)
        if relative.parts[:1] == (StoreKind.BENCHMARKS.value,):
            continue
        for name in sorted(names):
            destination = target / relative / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.replace(Path(directory) / name, destination)
