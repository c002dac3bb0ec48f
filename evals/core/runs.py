"""Benchmark run summaries (the eval-store contract): validation and "latest completed
run".

Decides whether a run summary is valid, reporting every problem with its JSON
path and the contract's message (``schemaVersion must be 1``, ``status must be a
non-empty string``, ``status must be one of running|completed|failed|partial``,
``totalCases must be a non-negative number``, ...), and which run is the
latest completed one of each benchmark.

Beyond the eval-store contract: unknown metric names are kept (any finite number; their
direction comes from ``metric_registry``), and a run may carry
``caseResults`` (``[{caseId, passed, score?, durationMs?, notes?}]``), whose
case ids are unique and whose pass/fail counts agree with
``passedCases``/``failedCases``.

Store loading validates hundreds of thousands of runs, and a run may hold
100,000 case results, so valid documents take a fast path that checks the
same rules by hand (case results: ``evals.core.run_case_results``); anything
it does not accept goes through JSON Schema and the full checks, which alone
decide the problems reported, so JSON Schema stays at run time. Property
tests keep the fast path no looser than the schema.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any, Literal, NamedTuple

import msgspec

from core.errors import SchemaProblem
from core.schemas import load_validator, validate
from evals.core.format_rules import (
    CASE_COUNT_LIMIT,
    NON_NEGATIVE_RANGE,
    NUL_ESCAPE,
    NUMBER_LIMIT,
    NUMBER_MESSAGES,
    MessageTable,
    fast_timestamp,
    is_safe_path_segment,
    js_trim,
    number_problems,
    parse_timestamp,
    raise_if_problems,
    translate_problems,
)
from evals.core.formats_types import CaseResult, RunStatus, RunSummary
from evals.core.run_case_results import (
    StoredCase,
    case_result_problems,
    case_results_fast_ok,
    stored_case_results,
    stored_cases_ok,
)

SCHEMA_NAME = "run_summary.v1.schema.json"

_NON_EMPTY = "{field} must be a non-empty string"
_COUNT = {
    "*": "{field} must be a non-negative number",
    "multipleOf": "{field} must be a whole number",
    "maximum": f"{{field}} must be at most {CASE_COUNT_LIMIT}",
    "out_of_range": f"{{field}} must be at most {CASE_COUNT_LIMIT}",
}
MESSAGES: MessageTable = {
    "$": "eval run summary must be an object",
    "$.schemaVersion": "schemaVersion must be 1",
    "$.runId": _NON_EMPTY,
    "$.benchmarkId": _NON_EMPTY,
    "$.status": {
        "*": _NON_EMPTY,
        "enum": "status must be one of running|completed|failed|partial",
    },
    "$.startedAt": _NON_EMPTY,
    "$.completedAt": _NON_EMPTY,
    "$.totalCases": _COUNT,
    "$.passedCases": _COUNT,
    "$.failedCases": _COUNT,
    "$.metrics": "metrics must be an object of numbers",
    "$.metrics.*": NUMBER_MESSAGES,
    "$.notes": "{field} must be a string",
    "$.gitRef": "{field} must be a string",
    "$.caseResults": "caseResults must be an array",
    "$.caseResults[]": "{field} must be an object",
    "$.caseResults[].caseId": _NON_EMPTY,
    "$.caseResults[].passed": "{field} must be a boolean",
    "$.caseResults[].score": NUMBER_MESSAGES,
    "$.caseResults[].durationMs": {
        "*": "{field} must be a non-negative number",
        "maximum": NON_NEGATIVE_RANGE,
        "out_of_range": NON_NEGATIVE_RANGE,
    },
    "$.caseResults[].notes": "{field} must be a string",
}
_MAP_PREFIXES = ("$.metrics",)

RUN_KEYS = frozenset(
    {
        "schemaVersion",
        "runId",
        "benchmarkId",
        "status",
        "startedAt",
        "completedAt",
        "totalCases",
        "passedCases",
        "failedCases",
        "metrics",
        "notes",
        "gitRef",
        "caseResults",
    }
)
# Plain dict lookups: calling an Enum class costs more than the whole check.
_STATUSES = {status.value: status for status in RunStatus}


def fast_valid(document: Any) -> bool:
    """True only for documents that certainly pass every rule.

    ``False`` proves nothing: ask the ``*_problems`` function then.
    """
    return fast_recency(document) is not None


def fast_recency(document: Any) -> datetime | None:
    """``validate_run_summary(document).recency`` for a document that
    certainly passes every rule, else ``None`` (which proves nothing).

    Written out by hand because it runs once per stored run; the instant
    comes with the check because the store's latest-run choice needs it.
    """
    if type(document) is not dict or not document.keys() <= RUN_KEYS:
        return None
    get = document.get
    version = get("schemaVersion")
    run_id = get("runId")
    benchmark_id = get("benchmarkId")
    started_at = get("startedAt")
    total, passed, failed = get("totalCases"), get("passedCases"), get("failedCases")
    if not (
        type(version) is int
        and version == 1
        and type(run_id) is str
        and type(benchmark_id) is str
        and benchmark_id.strip()
        # An id the store reader would trim is left to it.
        and benchmark_id == js_trim(benchmark_id)
        and type(started_at) is str
        and type(total) is int
        and type(passed) is int
        and type(failed) is int
        and passed >= 0
        and failed >= 0
        and passed + failed <= total <= CASE_COUNT_LIMIT
    ):
        return None
    try:
        if get("status") not in _STATUSES:
            return None
    except TypeError:
        return None
    if not is_safe_path_segment(run_id):
        return None
    if "caseResults" in document and not case_results_fast_ok(
        document["caseResults"], passed, failed
    ):
        return None
    recency = parse_timestamp(started_at)
    if recency is None:
        return None
    if "completedAt" in document:
        completed_at = document["completedAt"]
        if type(completed_at) is not str:
            return None
        # A valid completedAt is never empty, so it is the recency.
        recency = parse_timestamp(completed_at)
        if recency is None:
            return None
    for key in ("notes", "gitRef"):
        if key in document and type(document[key]) is not str:
            return None
    if "metrics" in document:
        metrics = document["metrics"]
        if type(metrics) is not dict:
            return None
        for value in metrics.values():
            kind = type(value)
            if (kind is not int and kind is not float) or not (
                -NUMBER_LIMIT <= value <= NUMBER_LIMIT
            ):
                return None
    return recency


# What ``fast_recency`` takes, as types msgspec checks while decoding. A
# number is an integer or a float of magnitude at most NUMBER_LIMIT; JSON
# has no NaN.
_Count = Annotated[int, msgspec.Meta(ge=0, le=CASE_COUNT_LIMIT)]
_Metric = (
    Annotated[int, msgspec.Meta(ge=-NUMBER_LIMIT, le=NUMBER_LIMIT)]
    | Annotated[float, msgspec.Meta(ge=-NUMBER_LIMIT, le=NUMBER_LIMIT)]
)
_UNSET = msgspec.UNSET


class StoredRun(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A stored run file's fields, their types and bounds checked."""

    schemaVersion: Literal[1]
    runId: str
    benchmarkId: str
    status: str
    startedAt: str
    totalCases: _Count
    passedCases: _Count
    failedCases: _Count
    completedAt: str | msgspec.UnsetType = _UNSET
    metrics: dict[str, _Metric] | msgspec.UnsetType = _UNSET
    notes: str | msgspec.UnsetType = _UNSET
    gitRef: str | msgspec.UnsetType = _UNSET
    caseResults: list[StoredCase] | msgspec.UnsetType = _UNSET


_STORED_RUN = msgspec.json.Decoder(StoredRun)


class StoredRunKey(NamedTuple):
    """What the latest-run choice needs of a stored run."""

    benchmark_id: str
    completed: bool
    recency: datetime
    run_id: str


class StoredRunFile(NamedTuple):
    """A stored run file that certainly holds a valid run summary: its
    latest-run key and its decoded fields."""

    key: StoredRunKey
    run: StoredRun


def read_stored_run(data: bytes) -> StoredRunFile | None:
    """A stored file's bytes that certainly hold a valid run summary of
    storable text (what ``fast_recency`` accepts of ``json.loads(data)``),
    else ``None``, which proves nothing: read it in full then. What the CI
    gate reads by the hundred thousand: decoding into a typed struct checks
    the types, key set and bounds in C, 1.7x cheaper than reading a dict and
    checking it by hand. Both keep the last of duplicate keys; lone
    surrogates are malformed JSON to msgspec; a NUL (written ``\\u0000``)
    is left to the full reader.
    """
    if data.find(NUL_ESCAPE) >= 0:
        return None
    try:
        run = _STORED_RUN.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    run_id = run.runId
    if not (
        run.passedCases + run.failedCases <= run.totalCases
        and run.status in _STATUSES
        and run.benchmarkId.strip()
        and run.benchmarkId == js_trim(run.benchmarkId)
        and is_safe_path_segment(run_id)
    ):
        return None
    if run.caseResults is not _UNSET and not stored_cases_ok(
        run.caseResults, run.passedCases, run.failedCases
    ):
        return None
    recency = fast_timestamp(run.startedAt)
    if recency is None:
        return None
    if run.completedAt is not _UNSET:
        # A valid completedAt is never empty, so it is the recency.
        recency = fast_timestamp(run.completedAt)
        if recency is None:
            return None
    key = StoredRunKey(
        run.benchmarkId, run.status == RunStatus.COMPLETED, recency, run_id
    )
    return StoredRunFile(key, run)


def stored_run_key(data: bytes) -> StoredRunKey | None:
    """``read_stored_run(data).key``, or ``None`` (which proves nothing)."""
    stored = read_stored_run(data)
    return None if stored is None else stored.key


def _or_none(value: Any) -> Any:
    return None if value is _UNSET else value


def stored_run_summary(stored: StoredRunFile) -> RunSummary:
    """The run summary of a file ``read_stored_run`` vouched for: equal to
    what the full reader makes of its bytes."""
    run = stored.run
    return RunSummary(
        run_id=run.runId,
        benchmark_id=run.benchmarkId,
        status=_STATUSES[run.status],
        started_at=run.startedAt,
        total_cases=run.totalCases,
        passed_cases=run.passedCases,
        failed_cases=run.failedCases,
        completed_at=_or_none(run.completedAt),
        metrics=_or_none(run.metrics),
        notes=_or_none(run.notes),
        git_ref=_or_none(run.gitRef),
        case_results=None
        if run.caseResults is _UNSET
        else stored_case_results(run.caseResults),
    )


def run_summary_problems(document: Any) -> list[SchemaProblem]:
    """Every problem of a run summary document, sorted by path (empty: valid)."""
    raw = validate(load_validator("evals.core", SCHEMA_NAME), document)
    raw.extend(number_problems(document))
    problems = translate_problems(
        raw,
        messages=MESSAGES,
        document_name="eval run summary",
        map_prefixes=_MAP_PREFIXES,
    )
    if not isinstance(document, dict):
        return problems
    bad = {problem.path for problem in problems}

    def ok(path: str) -> bool:
        return path not in bad and path[2:] in document

    if ok("$.runId") and not is_safe_path_segment(document["runId"]):
        problems.append(
            SchemaProblem(
                "$.runId", "unsafe_path_segment", "runId must be a safe path segment"
            )
        )
    for key in ("startedAt", "completedAt"):
        if ok(f"$.{key}") and parse_timestamp(document[key]) is None:
            problems.append(
                SchemaProblem(
                    f"$.{key}",
                    "invalid_timestamp",
                    f"{key} must be a valid ISO timestamp",
                )
            )
    counts_ok = all(
        ok(f"$.{key}") for key in ("totalCases", "passedCases", "failedCases")
    )
    if counts_ok and (
        document["passedCases"] + document["failedCases"] > document["totalCases"]
    ):
        problems.append(
            SchemaProblem(
                "$.passedCases",
                "count_mismatch",
                "passedCases + failedCases must be less than or equal to totalCases",
            )
        )
    if ok("$.caseResults"):
        problems.extend(case_result_problems(document, bad, counts_ok=counts_ok))
    return sorted(problems, key=lambda p: (p.path, p.code, p.message))


def validate_run_summary(document: Any) -> RunSummary:
    """Parse a run summary, raising ``SchemaInvalid`` with every problem.

    ``validate_run_summary(x).to_wire() == x`` for every valid ``x``.
    """
    if not fast_valid(document):
        raise_if_problems(run_summary_problems(document), "eval run summary")
    results = document.get("caseResults")
    metrics = document.get("metrics")
    return RunSummary(
        run_id=document["runId"],
        benchmark_id=document["benchmarkId"],
        status=_STATUSES[document["status"]],
        started_at=document["startedAt"],
        total_cases=int(document["totalCases"]),
        passed_cases=int(document["passedCases"]),
        failed_cases=int(document["failedCases"]),
        completed_at=document.get("completedAt"),
        metrics=None if metrics is None else dict(metrics),
        notes=document.get("notes"),
        git_ref=document.get("gitRef"),
        case_results=None
        if results is None
        else tuple(
            CaseResult(
                case_id=result["caseId"],
                passed=result["passed"],
                score=result.get("score"),
                duration_ms=result.get("durationMs"),
                notes=result.get("notes"),
            )
            for result in results
        ),
    )


def latest_completed_runs(runs: Iterable[RunSummary]) -> dict[str, RunSummary]:
    """The latest completed run of each benchmark, keyed and sorted by id.

    Latest = newest completedAt, else startedAt, compared as instants; a tie
    goes to the greater runId so the answer never depends on input order.
    """
    latest: dict[str, tuple[Any, str, RunSummary]] = {}
    for run in runs:
        if run.status is not RunStatus.COMPLETED:
            continue
        key = (run.recency, run.run_id)
        current = latest.get(run.benchmark_id)
        if current is None or key > current[:2]:
            latest[run.benchmark_id] = (key[0], key[1], run)
    return {benchmark_id: latest[benchmark_id][2] for benchmark_id in sorted(latest)}
