"""The on-disk eval store of the eval-store contract: layout, reading, writing and
status.

Layout under a root directory::

    benchmarks/<benchmarkId>/manifest.json   (+ the pack's extra files)
    runs/**/<runId>.json
    shadow/YYYY-MM-DD/<traceId>.json          (day = recordedAt[0:10])
    baselines/<snapshotId>.json

Reading (``evals.core.store_reader.load_store``) finds manifests
recursively under ``benchmarks/`` and every
``*.json`` under the other three folders. Each file is either a valid item
(with its path) or an invalid item (its path and every problem); one bad file
never hides the others. Symbolic links are reported as invalid, not followed,
so a store checked out from an untrusted branch cannot point the reader at
files outside it. Items are sorted by path, so the same tree always loads the
same way.

Writing is canonical and atomic: a document is ``to_wire()`` (fields in
schema order, maps with sorted keys) dumped with 2-space indentation,
non-ASCII kept, and one trailing newline, into a temporary file that then
replaces the target. The same document always gives the same bytes, and a
reader never sees half a file. Packs are written into a temporary folder and
swapped in whole.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from core.errors import CoreError, SchemaInvalid, SchemaProblem
from evals.core.case_columns import CaseColumns
from evals.core.format_rules import MAX_JSON_DEPTH, json_depth
from evals.core.formats_types import (
    BaselineSnapshot,
    Manifest,
    RunSummary,
    ShadowRecord,
)
from evals.core.runs import (
    latest_completed_runs,
)

__all__ = [
    "HarnessFlags",
    "InvalidCounts",
    "InvalidItem",
    "ItemCounts",
    "StoreContents",
    "StoreKind",
    "StoreUnreadable",
    "StoredItem",
    "latest_completed_runs",
    "store_json_bytes",
]

# Temporary names carry this marker; readers skip them.
TMP_MARKER = "~evalstore-tmp"


class StoreKind(StrEnum):
    BENCHMARKS = "benchmarks"
    RUNS = "runs"
    SHADOWS = "shadow"
    BASELINES = "baselines"


ALL_KINDS = frozenset(StoreKind)


class StoreUnreadable(CoreError):
    """The store root is missing, not a directory, or cannot be listed."""

    code = "store_unreadable"


@dataclass(frozen=True, slots=True)
class StoredItem[T]:
    """A valid document and its path relative to the store root (POSIX).

    ``columns``: a run's case results as columns, only when the reader was
    asked for them (``load_store(case_columns=True)``, the ``--stat`` gate);
    the run's ``case_results`` are then ``None``: not built."""

    path: str
    item: T
    columns: CaseColumns | None = None


@dataclass(frozen=True, slots=True)
class InvalidItem:
    """A file that is not a valid document, with every problem found."""

    path: str
    problems: tuple[SchemaProblem, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"path": self.path, "problems": [p.as_dict() for p in self.problems]}


@dataclass(frozen=True, slots=True)
class ItemCounts:
    """A number per kind of document (valid ones, or invalid ones)."""

    benchmarks: int = 0
    runs: int = 0
    shadows: int = 0
    baselines: int = 0

    @property
    def total(self) -> int:
        return self.benchmarks + self.runs + self.shadows + self.baselines

    def to_wire(self) -> dict[str, int]:
        return {
            "benchmarks": self.benchmarks,
            "runs": self.runs,
            "shadows": self.shadows,
            "baselines": self.baselines,
        }


InvalidCounts = ItemCounts


@dataclass(frozen=True, slots=True)
class StoreContents:
    """Everything read from one store root.

    ``kinds`` says what was read; for the kinds in ``counted_only`` every file
    was validated and counted (``valid_counts``) but valid items were not
    kept, so their tuple is empty by design. With ``latest_runs_only``,
    ``runs`` holds only the latest completed run of each benchmark.
    """

    root: str
    kinds: frozenset[StoreKind]
    counted_only: frozenset[StoreKind] = frozenset()
    latest_runs_only: bool = False
    valid_counts: ItemCounts = ItemCounts()
    manifests: tuple[StoredItem[Manifest], ...] = ()
    runs: tuple[StoredItem[RunSummary], ...] = ()
    shadows: tuple[StoredItem[ShadowRecord], ...] = ()
    baselines: tuple[StoredItem[BaselineSnapshot], ...] = ()
    invalid_manifests: tuple[InvalidItem, ...] = ()
    invalid_runs: tuple[InvalidItem, ...] = ()
    invalid_shadows: tuple[InvalidItem, ...] = ()
    invalid_baselines: tuple[InvalidItem, ...] = ()

    @property
    def invalid_counts(self) -> ItemCounts:
        return ItemCounts(
            benchmarks=len(self.invalid_manifests),
            runs=len(self.invalid_runs),
            shadows=len(self.invalid_shadows),
            baselines=len(self.invalid_baselines),
        )

    def run_list(self) -> list[RunSummary]:
        return [stored.item for stored in self.runs]


@dataclass(frozen=True, slots=True)
class HarnessFlags:
    """The contract's feature flags, all off by default."""

    eval_harness_enabled: bool = False
    eval_shadow_mode_enabled: bool = False
    baseline_snapshots_enabled: bool = False
    delta_reporter_enabled: bool = False
    memory_red_team_bench_enabled: bool = False


def store_json_bytes(document: Mapping[str, Any]) -> bytes:
    """The canonical on-disk bytes of a wire document (see module docstring).

    Raises ``SchemaInvalid`` (``nests too deep``) for a document nested
    deeper than ``MAX_JSON_DEPTH``, which no reader takes back (and which
    Python's writer would give up on at a depth its version decides).
    """
    if json_depth(document) > MAX_JSON_DEPTH:
        message = (
            f"document nests too deep to be written (more than {MAX_JSON_DEPTH} levels)"
        )
        problem = SchemaProblem("$", "too_deep", message)
        raise SchemaInvalid("document nests too deep", problems=[problem])
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")
