"""Types of seed 002's eval-store formats and the field rules they share.

The four formats (benchmark manifest, run summary, shadow recall record,
baseline snapshot) are parsed into the frozen dataclasses below; ``to_wire()``
gives back the camelCase document exactly: optional fields absent on input
stay absent, lists come back as lists, and maps come back with sorted keys so
the same document always serialises to the same bytes.

Invariants shared by every format:

- ids that become file names (benchmarkId, runId, traceId, snapshotId) are
  safe path segments: not blank, not ``.``/``..``, no ``/``, ``\\`` or
  control characters, at most 200 characters;
- timestamps are RFC 3339 with a time zone (``2026-03-06T10:00:00.000Z``);
  they are kept as written and compared as instants, never as strings;
- every problem is reported with a JSON path and the seed's message, never
  only the first.

Nothing here reads the clock or the environment.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from core.errors import SchemaInvalid, SchemaProblem
from core.text import NAME_MAX_BYTES, json_path, name_problem, unstorable_values

SCHEMA_VERSION = 1
SAFE_SEGMENT_MAX_CHARS = 200


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


# --- field rules ------------------------------------------------------------

_TIMESTAMP_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d{1,9}))?(?:Z|[+-]\d{2}:\d{2})\Z",
    re.ASCII,
)
_UNSAFE_SEGMENT_RE = re.compile(r"[\x00-\x1f\x7f/\\]")


def is_safe_path_segment(value: str) -> bool:
    """Whether ``value`` can be used as one file or directory name and as an
    identifier: also no invisible formatting character (zero-width, bidi
    override), control character or noncharacter, so that no id renders
    like another one."""
    return (
        0 < len(value) <= SAFE_SEGMENT_MAX_CHARS
        and value not in (".", "..")
        and not value.isspace()
        and _UNSAFE_SEGMENT_RE.search(value) is None
        and name_problem(value) is None
        and len(value.encode()) <= NAME_MAX_BYTES
    )


def parse_timestamp(value: str) -> datetime | None:
    """The instant of an RFC 3339 timestamp with a zone, else ``None``.

    Fractions beyond microseconds are accepted and truncated, because clients
    in other languages write nanoseconds; the original string is what is kept.
    """
    match = _TIMESTAMP_RE.match(value)
    if match is None:
        return None
    fraction = match.group(1)
    if fraction is not None and len(fraction) > 6:
        value = value[: match.start(1) + 6] + value[match.end(1) :]
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def timestamp_key(value: str) -> datetime:
    """Sort key of an already validated timestamp."""
    parsed = parse_timestamp(value)
    if parsed is None:
        raise ValueError(f"not a valid ISO timestamp: {value!r}")
    return parsed


def is_finite_number(value: object) -> bool:
    """A JSON number (not a bool) that is neither NaN nor infinite."""
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


def is_non_empty_string(value: object) -> bool:
    """A string with at least one non-whitespace character."""
    return type(value) is str and value.strip() != ""


# --- problem translation ------------------------------------------------------
#
# JSON Schema finds the structural problems; its messages ("'x' is not of type
# 'string'") are not the seed's, so each format keeps a table from a path
# pattern to the seed's sentence. A table value is either one template or a
# mapping from the failing keyword to a template ("*" for any other keyword).
# Templates may use {field} (``cases[0].id``) and {parent} (the field without
# its last index: ``tags`` for ``tags[2]``).

MessageTable = Mapping[str, str | Mapping[str, str]]

_INDEX_RE = re.compile(r"\[\d+\]")
_LAST_INDEX_RE = re.compile(r"\[\d+\]$")
_REQUIRED_RE = re.compile(r'^(".+") is a required property$')
# One problem per path: the most basic failure explains the rest ("" fails
# minLength and enum; only "must be a non-empty string" is useful).
_KEYWORD_RANK = {
    "required": 0,
    "type": 1,
    "const": 2,
    "minLength": 3,
    "pattern": 4,
    "not_finite": 5,
    "minimum": 6,
    "maximum": 7,
    "multipleOf": 8,
    "enum": 9,
}


def path_pattern(path: str, map_prefixes: Iterable[str] = ()) -> str:
    """``$.cases[3].id`` -> ``$.cases[].id``; keys under a map prefix -> ``*``."""
    pattern = _INDEX_RE.sub("[]", path)
    for prefix in map_prefixes:
        if pattern.startswith(prefix + "."):
            return prefix + ".*"
    return pattern


def translate_problems(
    raw: Iterable[SchemaProblem],
    *,
    messages: MessageTable,
    document_name: str,
    map_prefixes: Iterable[str] = (),
) -> list[SchemaProblem]:
    """Turn JSON Schema problems into the seed's messages, one per path.

    ``required`` problems move to the missing field's own path, so a missing
    ``cases[0].id`` and an empty one read the same. Unknown properties keep
    the shared ``unknown property: <key>`` message.
    """
    prefixes = tuple(map_prefixes)
    chosen: dict[str, tuple[int, SchemaProblem]] = {}
    for problem in raw:
        path, keyword = problem.path, problem.code
        if keyword == "unknown_property":
            chosen[path] = (-1, problem)
            continue
        if keyword == "required":
            match = _REQUIRED_RE.match(problem.message)
            if match:
                path = f"{path}.{json.loads(match.group(1))}"
        field = document_name if path == "$" else path[2:]
        parent = _LAST_INDEX_RE.sub("", field)
        entry = messages.get(path_pattern(path, prefixes))
        if isinstance(entry, Mapping):
            template = entry.get(keyword, entry.get("*", "{field} is invalid"))
        elif entry is None:
            template = "{field} is invalid"
        else:
            template = entry
        code = "required" if keyword == "required" else "invalid"
        rank = _KEYWORD_RANK.get(keyword, 10)
        message = template.format(field=field, parent=parent)
        candidate = SchemaProblem(path, code, message)
        current = chosen.get(path)
        if current is None or rank < current[0]:
            chosen[path] = (rank, candidate)
    return [problem for _, problem in chosen.values()]


def non_finite_problems(document: object, path: str = "$") -> list[SchemaProblem]:
    """Raw ``not_finite`` problems for every NaN/Infinity inside ``document``.

    JSON Schema's ``number`` accepts them; the formats do not.
    """
    found: list[SchemaProblem] = []
    if isinstance(document, float) and not math.isfinite(document):
        found.append(SchemaProblem(path, "not_finite", "not a finite number"))
    elif isinstance(document, dict):
        for key, value in document.items():
            found.extend(non_finite_problems(value, f"{path}.{key}"))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found.extend(non_finite_problems(value, f"{path}[{index}]"))
    return found


# ``scan_once`` is set by JSONDecoder.__init__; typeshed does not declare it.
_SCAN_VALUE: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_JSON_WHITESPACE = " \t\n\r"


def parse_json_document(data: bytes | str, *, what: str) -> Any:
    """Parse one UTF-8 JSON document.

    Raises ``SchemaInvalid`` with a single ``invalid_json`` problem at ``$``
    when it is no JSON (or nests too deep for the parser), and one
    ``unstorable`` problem per value no database column can store (NUL, lone
    surrogates, integers past 64 bits) by its path. ``NaN``/``Infinity``
    parse; every validator refuses them as numbers.
    """
    value = _parse_json(data, what=what)
    unstorable = unstorable_values(value)
    if unstorable:
        raise SchemaInvalid(
            f"{what} holds values that cannot be stored",
            problems=[
                SchemaProblem(json_path(parts), "unstorable", reason)
                for parts, reason in unstorable
            ],
        )
    return value


def _parse_json(data: bytes | str, *, what: str) -> Any:
    # The store reads hundreds of thousands of small files: scanning the value
    # directly skips json.loads' encoding sniffing. Anything unusual (leading
    # whitespace, a BOM, trailing data, an error) goes through json.loads,
    # which decides.
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value, end = _SCAN_VALUE(text, 0)
        if not text[end:].strip(_JSON_WHITESPACE):
            return value
    except (StopIteration, ValueError, RecursionError):
        pass
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        reason = "nests too deep" if isinstance(error, RecursionError) else error
        problem = SchemaProblem(
            "$", "invalid_json", f"{what} is not valid JSON: {reason}"
        )
        raise SchemaInvalid(f"{what} is not valid JSON", problems=[problem]) from None


def raise_if_problems(problems: list[SchemaProblem], what: str) -> None:
    """Raise ``SchemaInvalid`` carrying every problem, if there is any."""
    if problems:
        raise SchemaInvalid(f"invalid {what}", problems=problems)


def sorted_map(values: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A copy with keys sorted, so maps always serialise in the same order."""
    return None if values is None else {key: values[key] for key in sorted(values)}


def put_optional(out: dict[str, Any], key: str, value: Any) -> None:
    """Set ``out[key]`` unless ``value`` is ``None`` (absent stays absent)."""
    if value is not None:
        out[key] = value


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
    """Outcome of one case in a run (beyond seed 002: optional per-case data)."""

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

    ``total_cases`` is beyond seed 002 (optional): it lets ``--min-cases``
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
