"""Run summaries with case results read fast: the typed decoding of stored run
files and the hand check of parsed documents give exactly the verdicts,
problems and run summaries of the reference (JSON Schema and the full
checks) on generated stores, valid and invalid."""

from __future__ import annotations

import copy
import gc
import json
import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import SchemaInvalid
from evals.core import run_case_results, runs, store_reader
from evals.core.format_rules import NUMBER_LIMIT
from evals.core.formats_types import RunSummary
from evals.core.store import StoreContents, StoreKind, store_json_bytes
from evals.core.store_reader import load_store

BASE_RUN: dict[str, Any] = {
    "schemaVersion": 1,
    "runId": "run-1",
    "benchmarkId": "bench",
    "status": "completed",
    "startedAt": "2026-03-06T10:00:00.000Z",
    "completedAt": "2026-03-06T10:02:00.000Z",
    "totalCases": 4,
    "passedCases": 0,
    "failedCases": 0,
    "metrics": {"actionOutcomeScore": 0.5},
}


def run_with(cases: Any, *, total: int | None = None) -> dict[str, Any]:
    """``BASE_RUN`` with ``cases`` as its case results and counts that
    agree with them where they can."""
    document = copy.deepcopy(BASE_RUN)
    document["caseResults"] = cases
    if type(cases) is list:
        passes = sum(1 for case in cases if type(case) is dict and case.get("passed"))
        fails = sum(
            1 for case in cases if type(case) is dict and case.get("passed") is False
        )
        document["passedCases"], document["failedCases"] = passes, fails
        document["totalCases"] = passes + fails if total is None else total
    return document


@contextmanager
def reference_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every run read through JSON Schema and the full checks: both fast
    paths answer "proves nothing"."""
    with monkeypatch.context() as patch:
        patch.setattr(runs, "fast_recency", lambda document: None)
        patch.setattr(store_reader, "read_stored_run", lambda data: None)
        yield


def _read_both(
    root: Path, monkeypatch: pytest.MonkeyPatch, **options: Any
) -> tuple[StoreContents, StoreContents]:
    fast = load_store(root, **options)
    with reference_only(monkeypatch):
        reference = load_store(root, **options)
    return fast, reference


def _validate_both(document: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    def outcome() -> Any:
        try:
            return validate_outcome(runs.validate_run_summary(document))
        except SchemaInvalid as error:
            return [(p.path, p.code, p.message) for p in error.problems]

    fast = outcome()
    with reference_only(monkeypatch):
        reference = outcome()
    return fast, reference


# How the store is read: every run kept, or the latest per benchmark (the gate).
READS: list[dict[str, Any]] = [{}, {"latest_runs_only": True}]


def validate_outcome(summary: RunSummary) -> tuple[RunSummary, str]:
    """The summary and its wire text (which tells ``3`` from ``3.0``)."""
    return summary, json.dumps(summary.to_wire())


# --- case results near every rule's edge --------------------------------------

_IDS = ["a", "b", "a", "", " ", "\u00a0", "\x1c", "\u200b", "c\u00e9", "x y", "#1"]
_NUMBERS: list[Any] = [
    0,
    1,
    -1,
    0.5,
    -0.0,
    1.0,
    3,
    NUMBER_LIMIT,
    -NUMBER_LIMIT,
    NUMBER_LIMIT + 1,
    -NUMBER_LIMIT - 1,
    float(NUMBER_LIMIT),
    1e16,
    -1e16,
    2**63,
    True,
    False,
    None,
    "1",
    [],
    {},
]
_field_values = {
    "caseId": st.sampled_from(_IDS) | st.sampled_from(_NUMBERS),
    "passed": st.sampled_from([True, False, True, False, 1, 0, None, "true"]),
    "score": st.sampled_from(_NUMBERS),
    "durationMs": st.sampled_from(_NUMBERS),
    "notes": st.sampled_from(["", "note", " ", None, 1, True, ["x"]]),
    "extra": st.sampled_from([1, "x", None]),
}


@st.composite
def case_result(draw: st.DrawFn) -> Any:
    """A case result that is valid or breaks one or more rules."""
    if draw(st.integers(0, 30)) == 0:
        return draw(st.sampled_from([None, 1, "case", [], True]))
    case: dict[str, Any] = {
        "caseId": draw(st.sampled_from(["c1", "c2", "c3", "c4", "c5"])),
        "passed": draw(st.booleans()),
    }
    for key in ("score", "durationMs", "notes"):
        if draw(st.booleans()):
            case[key] = draw(
                st.sampled_from([0.5, 1.0, 0, 2, -0.0])
                if key != "notes"
                else st.sampled_from(["", "ok"])
            )
    for key in draw(st.lists(st.sampled_from(sorted(_field_values)), max_size=2)):
        if draw(st.integers(0, 4)) == 0:
            case.pop(key, None)
        else:
            case[key] = draw(_field_values[key])
    return case


@st.composite
def case_results_run(draw: st.DrawFn) -> dict[str, Any]:
    """A run whose case results are mostly valid, and otherwise break a
    rule: a field, uniqueness, the counts, or the array itself."""
    shape = draw(st.integers(0, 20))
    if shape == 0:
        return run_with(draw(st.sampled_from([None, {}, "[]", 1, True])))
    cases = draw(st.lists(case_result(), max_size=6, unique_by=_case_id_or_self))
    if shape == 1 and cases:
        cases.append(copy.deepcopy(cases[0]))  # a repeated case id
    document = run_with(cases)
    if shape == 2:
        document["passedCases"] += 1
    elif shape == 3 and document["failedCases"]:
        document["failedCases"] -= 1
        document["passedCases"] += 1
    elif shape == 4:
        document["totalCases"] = max(0, document["totalCases"] - 1)
    elif shape == 5:
        document["passedCases"] = float(document["passedCases"])
    elif shape == 6:
        document["status"] = " completed"
    return document


def _case_id_or_self(case: Any) -> Any:
    return json.dumps(case.get("caseId")) if type(case) is dict else repr(case)


def _file_bytes(document: dict[str, Any], style: int) -> bytes:
    """``document`` as a store file might hold it: canonical, compact or
    indented, escaped or UTF-8."""
    if style == 0:
        try:
            return store_json_bytes(document)
        except (ValueError, SchemaInvalid):
            style = 1
    text = json.dumps(document, ensure_ascii=style % 2 == 1, indent=style % 3 or None)
    return text.encode()


def _write_store(root: Path, files: dict[str, bytes]) -> None:
    (root / "runs").mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (root / "runs" / name).write_bytes(data)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    documents=st.lists(case_results_run(), min_size=1, max_size=3),
    style=st.integers(0, 5),
)
def test_store_reads_case_results_as_the_reference_does(
    documents: list[dict[str, Any]], style: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {}
    for index, document in enumerate(documents):
        document = dict(document, runId=f"run-{index}")
        files[f"run-{index}.json"] = _file_bytes(document, style)
    with tempfile.TemporaryDirectory() as tmp:
        _write_store(Path(tmp), files)

        for options in READS:
            fast, reference = _read_both(Path(tmp), monkeypatch, **options)

            assert fast == reference
            assert [json.dumps(s.item.to_wire()) for s in fast.runs] == [
                json.dumps(s.item.to_wire()) for s in reference.runs
            ]


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(document=case_results_run())
def test_validating_case_results_matches_the_reference(
    document: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, reference = _validate_both(document, monkeypatch)

    assert fast == reference


# Raw texts JSON serialisers do not write: duplicate keys inside a case
# result, NaN and the infinities, numbers past a float, lone surrogates.
_RAW_CASES = [
    '{"caseId": "a", "passed": true, "caseId": "b"}',
    '{"caseId": "a", "passed": true, "passed": false}',
    '{"caseId": "a", "passed": false, "score": NaN}',
    '{"caseId": "a", "passed": false, "score": Infinity}',
    '{"caseId": "a", "passed": false, "durationMs": -Infinity}',
    '{"caseId": "a", "passed": false, "score": 1e400}',
    '{"caseId": "a", "passed": false, "score": 1E2}',
    '{"caseId": "a", "passed": false, "durationMs": 9007199254740991.4}',
    '{"caseId": "a", "passed": false, "durationMs": 18446744073709551616}',
    '{"caseId": "\\ud800", "passed": false}',
    '{"caseId": "a\\u0000", "passed": false}',
    '{"caseId": "a", "passed": false, "notes": null}',
    '{"caseId": "a", "passed": false, "score": null}',
    '{"caseId": "null", "passed": false, "notes": "null"}',
]


@pytest.mark.parametrize("raw_case", _RAW_CASES)
def test_raw_case_texts_are_read_as_the_reference_reads_them(
    raw_case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    passed = json.loads(raw_case)["passed"] is True  # the last one counts
    head = run_with([], total=1) | {"passedCases": int(passed)}
    head["failedCases"] = 1 - int(passed)
    text = json.dumps(head)[:-1] + f', "caseResults": [{raw_case}]}}'
    _write_store(tmp_path, {"run-1.json": text.encode()})

    for options in READS:
        fast, reference = _read_both(tmp_path, monkeypatch, **options)

        assert fast == reference


# --- the fast paths are taken, and build what the reference builds ------------


def _bench_like_run(scenarios: int, repeats: int, *, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    for i in range(scenarios):
        for epoch in range(repeats):
            ok = rng.random() < 0.8
            case: dict[str, Any] = {"caseId": f"s{i}#{epoch}", "passed": ok}
            if rng.random() < 0.5:
                case["score"] = float(ok)
            if rng.random() < 0.3:
                case["notes"] = "n"
            cases.append(case)
    return run_with(cases, total=len(cases) + 3)


@pytest.mark.parametrize(
    "duration", [None, 12.5, 12], ids=["no-duration", "float", "integer"]
)
def test_valid_case_results_take_both_fast_paths(
    duration: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = _bench_like_run(30, 4, seed=1)
    if duration is not None:
        document["caseResults"][5]["durationMs"] = duration
    data = json.dumps(document).encode()

    stored = runs.read_stored_run(data)

    assert stored is not None
    assert runs.fast_recency(document) is not None
    with reference_only(monkeypatch):
        reference = runs.validate_run_summary(document)
    built = runs.stored_run_summary(stored)
    assert built == reference
    # The wire text tells an integer duration from a float one.
    assert json.dumps(built.to_wire()) == json.dumps(document)
    assert json.dumps(runs.validate_run_summary(document).to_wire()) == json.dumps(
        document
    )


@pytest.mark.parametrize(
    ("breakage", "path"),
    [
        ({"caseId": ""}, "$.caseResults[2].caseId"),
        ({"caseId": "\u3000"}, "$.caseResults[2].caseId"),
        ({"passed": 1}, "$.caseResults[2].passed"),
        ({"score": NUMBER_LIMIT + 1}, "$.caseResults[2].score"),
        ({"durationMs": -0.5}, "$.caseResults[2].durationMs"),
        ({"notes": None}, "$.caseResults[2].notes"),
        ({"extra": 1}, "$.caseResults[2].extra"),
        ({"caseId": "s0#0"}, "$.caseResults[2].caseId"),
    ],
)
def test_a_broken_case_result_is_refused_with_the_reference_problems(
    breakage: dict[str, Any], path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = _bench_like_run(3, 2, seed=2)
    document["caseResults"][2].update(breakage)

    assert runs.read_stored_run(json.dumps(document).encode()) is None
    assert runs.fast_recency(document) is None
    fast, reference = _validate_both(document, monkeypatch)
    assert fast == reference
    assert path in [problem[0] for problem in fast]


@pytest.mark.parametrize(
    ("notes", "vouched"), [("null", True), (None, False)], ids=["text", "json-null"]
)
def test_null_is_told_apart_from_the_text_null(
    notes: str | None, vouched: bool
) -> None:
    document = _bench_like_run(3, 2, seed=7)
    document["caseResults"][1]["notes"] = notes

    stored = runs.read_stored_run(json.dumps(document).encode())

    assert (stored is not None) is vouched
    if stored is not None:
        assert runs.stored_run_summary(stored).to_wire() == document


def test_counts_that_disagree_with_the_case_results_are_refused() -> None:
    document = _bench_like_run(3, 2, seed=3)
    document["passedCases"] += 1
    document["failedCases"] -= 1

    assert runs.read_stored_run(json.dumps(document).encode()) is None
    assert runs.fast_recency(document) is None
    with pytest.raises(SchemaInvalid) as caught:
        runs.validate_run_summary(document)
    assert [p.message for p in caught.value.problems] == [
        "caseResults must agree with passedCases and failedCases"
    ]


def test_a_large_run_is_read_without_json_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = _bench_like_run(500, 10, seed=4)
    _write_store(tmp_path, {"run-1.json": json.dumps(document).encode()})

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a valid run went through JSON Schema")

    monkeypatch.setattr(runs, "run_summary_problems", refuse)
    for options in READS:
        contents = load_store(tmp_path, **options)
        assert contents.valid_counts.runs == 1
        assert contents.runs[0].item.to_wire() == document
    assert runs.validate_run_summary(document).to_wire() == document


def test_the_built_case_results_are_a_tuple_of_case_results() -> None:
    document = _bench_like_run(2, 2, seed=5)
    stored = runs.read_stored_run(json.dumps(document).encode())
    assert stored is not None

    assert type(stored.run.caseResults) is list
    cases = run_case_results.stored_case_results(stored.run.caseResults)

    assert type(cases) is tuple
    assert [case.to_wire() for case in cases] == document["caseResults"]


def test_counted_only_runs_are_still_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = _bench_like_run(2, 2, seed=6)
    bad = copy.deepcopy(good) | {"runId": "run-2"}
    bad["caseResults"][0]["caseId"] = bad["caseResults"][1]["caseId"]
    _write_store(
        tmp_path,
        {
            "run-1.json": json.dumps(good).encode(),
            "run-2.json": json.dumps(bad).encode(),
        },
    )

    fast, reference = _read_both(tmp_path, monkeypatch, counted_only={StoreKind.RUNS})

    assert fast == reference
    assert fast.valid_counts.runs == 1
    assert [item.path for item in fast.invalid_runs] == ["runs/run-2.json"]


@pytest.mark.parametrize("enabled", [True, False])
def test_building_case_results_leaves_the_collector_as_it_found_it(
    enabled: bool,
) -> None:
    document = _bench_like_run(3, 2, seed=7)
    stored = runs.read_stored_run(json.dumps(document).encode())
    assert stored is not None
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        cases = run_case_results.stored_case_results(stored.run.caseResults)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert [case.to_wire() for case in cases] == document["caseResults"]
