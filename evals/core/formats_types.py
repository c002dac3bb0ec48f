"""Types of the eval-store contract's formats (the field rules they share are
``evals.core.format_rules``').

The four formats (benchmark manifest, run summary, shadow recall record,
baseline snapshot) are parsed into the frozen dataclasses below; ``to_wire()``
gives back the camelCase document exactly: optional fields absent on input
stay absent, lists come back as lists, and maps come back with sorted keys so
the same document always serialises to the same bytes.

Invariants shared by every format (checked in ``format_rules``):

- ids that become file names (benchmarkId, runId, traceId, snapshotId) are
  safe path segments: not blank, not ``.``/``..``, no ``/``, ``\\`` or
  control characters, at most 200 characters;
- timestamps are RFC 3339 with a time zone (``2026-03-06T10:00:00.000Z``);
  they are kept as written and compared as instants, never as strings;
- every problem is reported with a JSON path and the contract's message, never
  only the first.

Nothing here reads the clock or the environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from evals.core.format_rules import put_optional, sorted_map, timestamp_key

SCHEMA_VERSION = 1


class BenchmarkType(StrEnum):
    STANDARD = "standard"
    MEMORY_RED_TEAM = "memory-red-team"


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    PARTIAL = "partial"


class RecallMode(StrEnum):
    NO_RECALL = "no_recall"
    MINIMAL = "minimal"
    FULL = "full"
    GRAPH_MODE = "graph_mode"


class RecallSource(StrEnum):
    NONE = "none"
    HOT_QMD = "hot_qmd"
    HOT_EMBEDDING = "hot_embedding"
    COLD_FALLBACK = "cold_fallback"
    RECENT_SCAN = "recent_scan"


#
# JSON Schema finds the structural problems; its messages ("'x' is not of type
# 'string'") are not the contract's, so each format keeps a table from a path
# pattern to the contract's sentence. A table value is either one template or a
# mapping from the failing keyword to a template ("*" for any other keyword).
# Templates may use {field} (``cases[0].id``) and {parent} (the field without
# its last index: ``tags`` for ``tags[2]``).


# --- benchmark manifest -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BenchmarkCase:
    """One case of a benchmark pack; ids are unique within the pack."""

    id: str
    prompt: str
    expected_signals: tuple[str, ...] | None = None
    notes: str | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "prompt": self.prompt}
        if self.expected_signals is not None:
            out["expectedSignals"] = list(self.expected_signals)
        put_optional(out, "notes", self.notes)
        return out


@dataclass(frozen=True, slots=True)
class Manifest:
    """A benchmark pack manifest.

    ``declared_type`` is what the document says (``None`` when it omits
    ``benchmarkType``); ``benchmark_type`` is the effective type.
    """

    benchmark_id: str
    title: str
    cases: tuple[BenchmarkCase, ...]
    declared_type: BenchmarkType | None = None
    description: str | None = None
    tags: tuple[str, ...] | None = None
    source_links: tuple[str, ...] | None = None
    attack_class: str | None = None
    target_surface: str | None = None
    # Top-level properties this version does not know, kept as they came.
    extra: Mapping[str, Any] | None = None

    @property
    def benchmark_type(self) -> BenchmarkType:
        return self.declared_type or BenchmarkType.STANDARD

    @property
    def is_red_team(self) -> bool:
        return self.benchmark_type is BenchmarkType.MEMORY_RED_TEAM

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schemaVersion": SCHEMA_VERSION,
            "benchmarkId": self.benchmark_id,
        }
        if self.declared_type is not None:
            out["benchmarkType"] = self.declared_type.value
        out["title"] = self.title
        put_optional(out, "description", self.description)
        if self.tags is not None:
            out["tags"] = list(self.tags)
        if self.source_links is not None:
            out["sourceLinks"] = list(self.source_links)
        put_optional(out, "attackClass", self.attack_class)
        put_optional(out, "targetSurface", self.target_surface)
        out["cases"] = [case.to_wire() for case in self.cases]
        for key, value in (self.extra or {}).items():
            out.setdefault(key, value)
        return out


# --- run summary --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CaseResult:
    """Outcome of one case in a run (beyond the eval-store contract: optional per-case
    data)."""

    case_id: str
    passed: bool
    score: float | None = None
    duration_ms: float | None = None
    notes: str | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"caseId": self.case_id, "passed": self.passed}
        put_optional(out, "score", self.score)
        put_optional(out, "durationMs", self.duration_ms)
        put_optional(out, "notes", self.notes)
        return out


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One execution of a benchmark.

    ``metrics`` keeps every numeric metric, known to the registry or not;
    treat it as read-only.
    """

    run_id: str
    benchmark_id: str
    status: RunStatus
    started_at: str
    total_cases: int
    passed_cases: int
    failed_cases: int
    completed_at: str | None = None
    metrics: Mapping[str, float] | None = None
    notes: str | None = None
    git_ref: str | None = None
    case_results: tuple[CaseResult, ...] | None = None

    @property
    def pass_rate(self) -> float:
        """passed / total, 0 when the run has no cases."""
        return self.passed_cases / self.total_cases if self.total_cases > 0 else 0.0

    @property
    def not_run_cases(self) -> int:
        """Cases counted in totalCases that neither passed nor failed: they
        never ran (a partial or failed run)."""
        return max(self.total_cases - self.passed_cases - self.failed_cases, 0)

    @property
    def recency(self) -> datetime:
        """completedAt, else startedAt: what "latest" means for runs."""
        return timestamp_key(self.completed_at or self.started_at)

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schemaVersion": SCHEMA_VERSION,
            "runId": self.run_id,
            "benchmarkId": self.benchmark_id,
            "status": self.status.value,
            "startedAt": self.started_at,
        }
        put_optional(out, "completedAt", self.completed_at)
        out["totalCases"] = self.total_cases
        out["passedCases"] = self.passed_cases
        out["failedCases"] = self.failed_cases
        put_optional(out, "metrics", sorted_map(self.metrics))
        put_optional(out, "notes", self.notes)
        put_optional(out, "gitRef", self.git_ref)
        if self.case_results is not None:
            out["caseResults"] = [result.to_wire() for result in self.case_results]
        return out


# --- shadow recall record -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShadowRecord:
    """A compact snapshot of one live recall decision: hashes and counts only."""

    trace_id: str
    recorded_at: str
    session_key: str
    prompt_hash: str
    prompt_length: float
    retrieval_query_hash: str
    retrieval_query_length: float
    recall_mode: RecallMode
    recall_result_limit: float
    source: RecallSource
    recalled_memory_count: float
    injected: bool
    context_chars: float
    memory_ids: tuple[str, ...]
    duration_ms: float

    @property
    def day(self) -> str:
        """The ``shadow/YYYY-MM-DD`` directory: recordedAt[0:10]."""
        return self.recorded_at[:10]

    def to_wire(self) -> dict[str, Any]:
        return {
            "schemaVersion": SCHEMA_VERSION,
            "traceId": self.trace_id,
            "recordedAt": self.recorded_at,
            "sessionKey": self.session_key,
            "promptHash": self.prompt_hash,
            "promptLength": self.prompt_length,
            "retrievalQueryHash": self.retrieval_query_hash,
            "retrievalQueryLength": self.retrieval_query_length,
            "recallMode": self.recall_mode.value,
            "recallResultLimit": self.recall_result_limit,
            "source": self.source.value,
            "recalledMemoryCount": self.recalled_memory_count,
            "injected": self.injected,
            "contextChars": self.context_chars,
            "memoryIds": list(self.memory_ids),
            "durationMs": self.duration_ms,
        }


# --- baseline snapshot --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BaselineBenchmark:
    """The latest completed run of one benchmark, frozen into a snapshot.

    ``total_cases`` is beyond the eval-store contract (optional): it lets
    ``--min-cases``
    judge a stored baseline.
    """

    benchmark_id: str
    run_id: str
    pass_rate: float
    completed_at: str | None = None
    git_ref: str | None = None
    metrics: Mapping[str, float] | None = None
    total_cases: int | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"benchmarkId": self.benchmark_id, "runId": self.run_id}
        put_optional(out, "completedAt", self.completed_at)
        put_optional(out, "gitRef", self.git_ref)
        out["passRate"] = self.pass_rate
        put_optional(out, "totalCases", self.total_cases)
        put_optional(out, "metrics", sorted_map(self.metrics))
        return out


@dataclass(frozen=True, slots=True)
class BaselineSnapshot:
    """A named baseline: one entry per benchmark, no raw cases."""

    snapshot_id: str
    created_at: str
    source_root_dir: str
    benchmarks: tuple[BaselineBenchmark, ...]
    notes: str | None = None
    git_ref: str | None = None

    @property
    def benchmark_count(self) -> int:
        return len(self.benchmarks)

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schemaVersion": SCHEMA_VERSION,
            "snapshotId": self.snapshot_id,
            "createdAt": self.created_at,
            "sourceRootDir": self.source_root_dir,
            "benchmarkCount": self.benchmark_count,
            "benchmarks": [benchmark.to_wire() for benchmark in self.benchmarks],
        }
        put_optional(out, "notes", self.notes)
        put_optional(out, "gitRef", self.git_ref)
        return out
