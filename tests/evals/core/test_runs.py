"""Run summaries: every rule and message, the fast path, latest completed runs."""

from __future__ import annotations

import copy
import json
import math
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import SchemaInvalid
from core.text import unstorable_values
from evals.core import runs
from evals.core.format_rules import NUL_ESCAPE, parse_json_document
from evals.core.formats_types import RunStatus
from evals.core.runs import (
    latest_completed_runs,
    run_summary_problems,
    validate_run_summary,
)
from evals.core.store import store_json_bytes
from tests.json_strategies import Change, changed, changes, json_values

SEED_RUN: dict[str, Any] = {
    "schemaVersion": 1,
    "runId": "run-001",
    "benchmarkId": "ama-memory",
    "status": "completed",
    "startedAt": "2026-03-06T10:00:00.000Z",
    "completedAt": "2026-03-06T10:02:00.000Z",
    "totalCases": 12,
    "passedCases": 9,
    "failedCases": 3,
    "metrics": {"actionOutcomeScore": 0.81, "objectiveStateCoverage": 0.67},
}


def with_changes(**changes: Any) -> dict[str, Any]:
    document = copy.deepcopy(SEED_RUN)
    for key, value in changes.items():
        if value is ...:
            document.pop(key, None)
        else:
            document[key] = value
    return document


def problems_of(document: Any) -> list[tuple[str, str]]:
    with pytest.raises(SchemaInvalid) as caught:
        validate_run_summary(document)
    return [(p.path, p.message) for p in caught.value.problems]


def run(
    run_id: str,
    benchmark_id: str = "b",
    *,
    status: str = "completed",
    started_at: str = "2026-03-06T10:00:00.000Z",
    completed_at: str | None = None,
) -> Any:
    document = with_changes(
        runId=run_id,
        benchmarkId=benchmark_id,
        status=status,
        startedAt=started_at,
        completedAt=completed_at if completed_at is not None else ...,
    )
    return validate_run_summary(document)


def test_seed_run_summary_is_valid_and_round_trips() -> None:
    summary = validate_run_summary(SEED_RUN)

    assert summary.status is RunStatus.COMPLETED
    assert summary.pass_rate == 0.75
    assert summary.to_wire() == SEED_RUN


def test_unknown_metric_names_are_kept() -> None:
    document = with_changes(metrics={"latency_p95_ms": 812, "myNewScore": -0.5})

    assert validate_run_summary(document).metrics == {
        "latency_p95_ms": 812,
        "myNewScore": -0.5,
    }
    assert validate_run_summary(document).to_wire() == document


def test_optional_fields_round_trip() -> None:
    document = with_changes(
        notes="nightly", gitRef="abc123", metrics={}, completedAt=...
    )

    assert validate_run_summary(document).to_wire() == document


def test_pass_rate_is_zero_without_cases() -> None:
    document = with_changes(totalCases=0, passedCases=0, failedCases=0)

    assert validate_run_summary(document).pass_rate == 0.0


@pytest.mark.parametrize("status", ["", "  ", 3, None, ...])
def test_status_must_be_a_non_empty_string(status: Any) -> None:
    assert problems_of(with_changes(status=status)) == [
        ("$.status", "status must be a non-empty string")
    ]


@pytest.mark.parametrize("status", ["done", "COMPLETED", "cancelled"])
def test_status_must_be_one_of_the_four(status: str) -> None:
    assert problems_of(with_changes(status=status)) == [
        ("$.status", "status must be one of running|completed|failed|partial")
    ]


@pytest.mark.parametrize("status", ["running", "completed", "failed", "partial"])
def test_all_four_statuses_are_accepted(status: str) -> None:
    assert validate_run_summary(with_changes(status=status)).status == status


@pytest.mark.parametrize("field", ["totalCases", "passedCases", "failedCases"])
@pytest.mark.parametrize("value", [-1, "3", None, True, math.inf, math.nan, ...])
def test_counts_must_be_non_negative_numbers(field: str, value: Any) -> None:
    document = with_changes(**{field: value})

    assert problems_of(document) == [
        (f"$.{field}", f"{field} must be a non-negative number")
    ]


def test_counts_must_be_whole_numbers() -> None:
    assert problems_of(with_changes(totalCases=12.5)) == [
        ("$.totalCases", "totalCases must be a whole number")
    ]


def test_whole_float_counts_are_accepted_as_integers() -> None:
    summary = validate_run_summary(with_changes(totalCases=12.0))

    assert summary.total_cases == 12
    assert type(summary.total_cases) is int


def test_passed_and_failed_cannot_exceed_total() -> None:
    assert problems_of(with_changes(passedCases=10)) == [
        (
            "$.passedCases",
            "passedCases + failedCases must be less than or equal to totalCases",
        )
    ]


@pytest.mark.parametrize(
    "timestamp",
    [
        "2026-03-06",
        "2026-03-06T10:00:00",
        "2026-03-06 10:00:00Z",
        "yesterday",
        "2026-13-06T10:00:00Z",
        "2026-02-30T10:00:00Z",
        "2026-03-06T10:00:00Z\n",
        "2026-03-06T10:00:00.1234567890Z",
    ],
)
def test_timestamps_must_be_iso_with_a_zone(timestamp: str) -> None:
    assert problems_of(with_changes(startedAt=timestamp, completedAt=timestamp)) == [
        ("$.completedAt", "completedAt must be a valid ISO timestamp"),
        ("$.startedAt", "startedAt must be a valid ISO timestamp"),
    ]


@pytest.mark.parametrize(
    "timestamp",
    [
        "2026-03-06T10:00:00Z",
        "2026-03-06T12:00:00+02:00",
        "2026-03-06T10:00:00.123456789Z",
    ],
)
def test_other_rfc3339_timestamps_are_kept_as_written(timestamp: str) -> None:
    summary = validate_run_summary(with_changes(startedAt=timestamp))

    assert summary.started_at == timestamp


@pytest.mark.parametrize("run_id", ["..", "a/b", "run\\1"])
def test_run_id_must_be_a_safe_path_segment(run_id: str) -> None:
    assert problems_of(with_changes(runId=run_id)) == [
        ("$.runId", "runId must be a safe path segment")
    ]


def test_metrics_must_be_finite_numbers() -> None:
    document = with_changes(metrics={"a": "0.5", "b": math.nan, "c": True, "d": 1})

    assert problems_of(document) == [
        ("$.metrics.a", "metrics.a must be a finite number"),
        ("$.metrics.b", "metrics.b must be a finite number"),
        ("$.metrics.c", "metrics.c must be a finite number"),
    ]


def test_metrics_must_be_an_object() -> None:
    assert problems_of(with_changes(metrics=[0.5])) == [
        ("$.metrics", "metrics must be an object of numbers")
    ]


def test_every_problem_is_reported() -> None:
    document = {"schemaVersion": 1, "runId": "r", "status": "nope", "totalCases": -2}

    assert problems_of(document) == [
        ("$.benchmarkId", "benchmarkId must be a non-empty string"),
        ("$.failedCases", "failedCases must be a non-negative number"),
        ("$.passedCases", "passedCases must be a non-negative number"),
        ("$.startedAt", "startedAt must be a non-empty string"),
        ("$.status", "status must be one of running|completed|failed|partial"),
        ("$.totalCases", "totalCases must be a non-negative number"),
    ]


def test_unknown_fields_are_refused() -> None:
    assert problems_of(with_changes(prompt="raw text")) == [
        ("$.prompt", "unknown property: prompt")
    ]


# --- case results (beyond the seed) -------------------------------------------

CASES = [
    {"caseId": "c1", "passed": True, "score": 0.9, "durationMs": 12.5},
    {"caseId": "c2", "passed": False, "notes": "timed out"},
]


def test_case_results_round_trip() -> None:
    document = with_changes(
        totalCases=2, passedCases=1, failedCases=1, caseResults=CASES
    )

    summary = validate_run_summary(document)

    assert [(r.case_id, r.passed) for r in summary.case_results or ()] == [
        ("c1", True),
        ("c2", False),
    ]
    assert summary.to_wire() == document


def test_case_results_must_agree_with_counts() -> None:
    document = with_changes(
        totalCases=2, passedCases=2, failedCases=0, caseResults=CASES
    )

    assert problems_of(document) == [
        ("$.caseResults", "caseResults must agree with passedCases and failedCases")
    ]


def test_case_result_ids_must_be_unique() -> None:
    results = [{"caseId": "c1", "passed": True}, {"caseId": "c1", "passed": False}]
    document = with_changes(
        totalCases=2, passedCases=1, failedCases=1, caseResults=results
    )

    assert problems_of(document) == [
        ("$.caseResults[1].caseId", "caseResults[1].caseId must be unique")
    ]


def test_case_result_fields_are_checked() -> None:
    results = [{"caseId": "", "passed": "yes"}, {"passed": True, "output": "raw"}, 3]
    document = with_changes(caseResults=results)

    assert problems_of(document) == [
        ("$.caseResults[0].caseId", "caseResults[0].caseId must be a non-empty string"),
        ("$.caseResults[0].passed", "caseResults[0].passed must be a boolean"),
        ("$.caseResults[1].caseId", "caseResults[1].caseId must be a non-empty string"),
        ("$.caseResults[1].output", "unknown property: output"),
        ("$.caseResults[2]", "caseResults[2] must be an object"),
    ]


# --- latest completed run -----------------------------------------------------


def test_latest_completed_run_prefers_newest_completed_at() -> None:
    older = run("r1", completed_at="2026-03-06T10:05:00Z")
    newer = run("r2", completed_at="2026-03-06T10:06:00Z")
    running = run("r3", status="running", started_at="2026-03-07T00:00:00Z")

    assert latest_completed_runs([newer, running, older]) == {"b": newer}


def test_latest_completed_run_falls_back_to_started_at() -> None:
    with_completion = run("r1", completed_at="2026-03-06T10:05:00Z")
    started_later = run("r2", started_at="2026-03-06T11:00:00Z")

    assert latest_completed_runs([with_completion, started_later]) == {
        "b": started_later
    }


def test_latest_completed_run_compares_instants_not_strings() -> None:
    utc = run("r1", completed_at="2026-03-06T10:30:00Z")
    earlier_in_utc = run("r2", completed_at="2026-03-06T11:00:00+01:00")

    assert latest_completed_runs([utc, earlier_in_utc]) == {"b": utc}


def test_latest_completed_run_tie_goes_to_greater_run_id() -> None:
    first = run("r-a", completed_at="2026-03-06T10:05:00Z")
    second = run("r-b", completed_at="2026-03-06T10:05:00Z")

    assert latest_completed_runs([second, first]) == {"b": second}
    assert latest_completed_runs([first, second]) == {"b": second}


def test_latest_completed_runs_are_keyed_by_sorted_benchmark() -> None:
    runs_ = [run("r1", "zeta"), run("r2", "alpha"), run("r3", "mid", status="failed")]

    assert list(latest_completed_runs(runs_)) == ["alpha", "zeta"]


@given(st.permutations(range(6)))
def test_latest_completed_runs_ignore_input_order(order: list[int]) -> None:
    pool = [
        run(f"r{i}", f"b{i % 2}", completed_at=f"2026-03-06T10:0{i % 3}:00Z")
        for i in range(6)
    ]

    latest = latest_completed_runs([pool[i] for i in order])

    assert {k: v.run_id for k, v in latest.items()} == {"b0": "r2", "b1": "r5"}


# --- the fast path is never looser than the schema ----------------------------

_json_value = json_values(
    max_int=20,
    words=["", " ", "x", "completed", "..", "2026-03-06T10:00:00Z", "a/b"],
)
_keys = sorted(runs.RUN_KEYS | {"extra"})


@settings(max_examples=400)
@given(change=changes(_keys, _json_value))
def test_fast_path_accepts_only_valid_documents(change: Change) -> None:
    document = changed(SEED_RUN, change)

    if runs.fast_valid(document):
        assert run_summary_problems(document) == []
        recency = runs.fast_recency(document)
        assert recency == runs.validate_run_summary(document).recency
        assert recency is not None and recency.tzinfo is not None
    else:
        assert runs.fast_recency(document) is None


def test_fast_path_takes_the_seed_example() -> None:
    assert runs.fast_valid(copy.deepcopy(SEED_RUN))


@pytest.mark.parametrize(
    ("times", "recency"),
    [
        ({"startedAt": "2026-03-06T10:00:00Z"}, "2026-03-06T10:00:00+00:00"),
        (
            {
                "startedAt": "2026-03-06T10:00:00Z",
                "completedAt": "2026-03-06T12:30:00+02:00",
            },
            "2026-03-06T10:30:00+00:00",
        ),
    ],
)
def test_fast_recency_is_completed_at_else_started_at(
    times: dict[str, str], recency: str
) -> None:
    document = {k: v for k, v in SEED_RUN.items() if k != "completedAt"} | times

    found = runs.fast_recency(document)

    assert found is not None
    assert found == datetime.fromisoformat(recency)
    assert found == runs.validate_run_summary(document).recency


# --- stored run files decoded straight into checked fields (msgspec) ----------

_hostile = st.sampled_from(
    ["a\x00b", "\\u0000", "\ud800", "caf\u00e9", " ", "2026-03-06T10:00:00.1234567Z"]
    + [2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 10**30, 1e308, 1.0, True, -0.0]
    + [2**31 - 1, 2**31, 2**53 - 1, 2**53, -(2**53) + 1, -(2**53), 1e16, -1e16]
)
_stored_changes = changes(
    _keys,
    _json_value
    | _hostile
    | st.dictionaries(st.text(max_size=3), _hostile | _json_value, max_size=2),
)


def _stored_bytes(document: Any, style: int) -> bytes:
    """``document`` as a file might hold it: indented or compact, escaped
    or UTF-8 (lone surrogates as invalid bytes), keys as given or reversed."""
    if style & 4:
        document = dict(reversed(list(document.items())))
    text = json.dumps(
        document,
        ensure_ascii=bool(style & 1),
        indent=None if style & 2 else 2,
    )
    return text.encode("utf-8", "surrogatepass")


def _key_of_full_read(data: bytes) -> tuple[Any, ...] | None:
    """What the full reader makes of ``data``: the latest-run key, or
    ``None`` when it refuses the file."""
    try:
        summary = validate_run_summary(parse_json_document(data, what="r.json"))
    except SchemaInvalid:
        return None
    completed = summary.status is RunStatus.COMPLETED
    return (summary.benchmark_id, completed, summary.recency, summary.run_id)


# Slow by design: 600 generated run changes, each validated in full.
@settings(max_examples=600)
@given(change=_stored_changes, style=st.integers(0, 7))
def test_stored_run_key_vouches_only_for_valid_storable_runs(
    change: Change, style: int
) -> None:
    document = changed(SEED_RUN, change)
    data = _stored_bytes(document, style)

    key = runs.stored_run_key(data)

    if key is not None:
        assert tuple(key) == _key_of_full_read(data)
    elif (
        runs.fast_recency(document) is not None
        and not unstorable_values(document)
        and NUL_ESCAPE not in data
    ):
        pytest.fail(f"a run fast_recency takes was left to the full reader: {data!r}")


@settings(max_examples=300)
@given(
    key=st.sampled_from(sorted(runs.RUN_KEYS)),
    value=_json_value | _hostile,
    style=st.integers(0, 7),
)
def test_stored_run_key_reads_duplicate_keys_as_the_full_reader(
    key: str, value: Any, style: int
) -> None:
    text = _stored_bytes(SEED_RUN, style).decode()
    data = (
        text[: text.rindex("}")].rstrip() + f', "{key}": {json.dumps(value)}}}'
    ).encode()

    found = runs.stored_run_key(data)

    if found is not None:
        assert tuple(found) == _key_of_full_read(data)


def test_stored_run_key_takes_what_the_store_writes() -> None:
    data = store_json_bytes(validate_run_summary(SEED_RUN).to_wire())
    assert runs.stored_run_key(data) == (
        "ama-memory",
        True,
        datetime.fromisoformat("2026-03-06T10:02:00+00:00"),
        "run-001",
    )
