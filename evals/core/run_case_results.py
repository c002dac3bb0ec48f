"""A run summary's ``caseResults``: the rules beyond its JSON Schema, and the
fast checks that stand in for the whole schema on documents that pass.

The rules: an array of objects with the keys ``caseId`` (a string with a
non-whitespace character) and ``passed`` (a boolean), and optionally
``score`` (a number of magnitude at most ``NUMBER_LIMIT``), ``durationMs``
(a number from 0 to ``NUMBER_LIMIT``) and ``notes`` (a string), nothing
else; case ids unique; as many passed and failed results as ``passedCases``
and ``failedCases`` say.

A run of 10,000 scenarios x 10 epochs holds 100,000 case results, which
JSON Schema checks in about 20 s. The fast checks below answer ``True``
only for case results that certainly pass every rule, in tens of
milliseconds; ``False`` proves nothing: the run is then validated in full
(``evals.core.runs.run_summary_problems``), which alone words the problems.
Tests compare both with the full validation on generated stores.
"""

from __future__ import annotations

import gc
from typing import Annotated, Any

import msgspec

from core.errors import SchemaProblem
from evals.core.case_columns import CaseColumns
from evals.core.format_rules import NUMBER_LIMIT
from evals.core.formats_types import CaseResult

CASE_KEYS = frozenset({"caseId", "passed", "score", "durationMs", "notes"})


def case_result_problems(
    document: dict[str, Any], bad: set[str], *, counts_ok: bool
) -> list[SchemaProblem]:
    """The problems JSON Schema cannot say of a run's case results (unique
    ids, counts that agree); ``bad``: the paths with a schema problem
    already, ``counts_ok``: whether the run's three counts are valid."""
    problems: list[SchemaProblem] = []
    seen: set[str] = set()
    passes = fails = 0
    all_ok = True
    for index, result in enumerate(document["caseResults"]):
        if not isinstance(result, dict) or any(
            path.startswith(f"$.caseResults[{index}]") for path in bad
        ):
            all_ok = False
            continue
        case_id = result["caseId"]
        if case_id in seen:
            problems.append(
                SchemaProblem(
                    f"$.caseResults[{index}].caseId",
                    "duplicate",
                    f"caseResults[{index}].caseId must be unique",
                )
            )
        seen.add(case_id)
        if result["passed"]:
            passes += 1
        else:
            fails += 1
    if (
        all_ok
        and counts_ok
        and (passes, fails) != (document["passedCases"], document["failedCases"])
    ):
        problems.append(
            SchemaProblem(
                "$.caseResults",
                "count_mismatch",
                "caseResults must agree with passedCases and failedCases",
            )
        )
    return problems


def _ids_and_counts_agree(
    case_ids: list[Any], passes: int, total: int, passed_cases: int, failed_cases: int
) -> bool:
    """Every id has a non-whitespace character (``str.strip`` removes
    exactly what the schema's ``\\S`` does not match), no id repeats, and
    the counts agree; each a single pass in C."""
    return (
        passes == passed_cases
        and total - passes == failed_cases
        and all(map(str.strip, case_ids))
        and len(set(case_ids)) == total
    )


def case_results_fast_ok(results: Any, passed_cases: int, failed_cases: int) -> bool:
    """True only for parsed ``caseResults`` that certainly pass every rule,
    given valid integer ``passedCases`` and ``failedCases``. Exact type
    checks: a bool is no number here, as in the schema."""
    if type(results) is not list:
        return False
    keys = CASE_KEYS
    for result in results:
        if type(result) is not dict or not result.keys() <= keys:
            return False
        if type(result.get("caseId")) is not str:
            return False
        if type(result.get("passed")) is not bool:
            return False
        if len(result) == 2:
            continue
        if "score" in result:
            score = result["score"]
            kind = type(score)
            if (kind is not int and kind is not float) or not (
                -NUMBER_LIMIT <= score <= NUMBER_LIMIT
            ):
                return False
        if "durationMs" in result:
            duration = result["durationMs"]
            kind = type(duration)
            if (kind is not int and kind is not float) or not (
                0 <= duration <= NUMBER_LIMIT
            ):
                return False
        if "notes" in result and type(result["notes"]) is not str:
            return False
    return _ids_and_counts_agree(
        [result["caseId"] for result in results],
        [result["passed"] for result in results].count(True),
        len(results),
        passed_cases,
        failed_cases,
    )


# A case result as msgspec checks it while decoding a stored run's bytes:
# the key set, the types and the number bounds, in C. JSON has no NaN.
_Number = (
    Annotated[int, msgspec.Meta(ge=-NUMBER_LIMIT, le=NUMBER_LIMIT)]
    | Annotated[float, msgspec.Meta(ge=-NUMBER_LIMIT, le=NUMBER_LIMIT)]
)
_Duration = (
    Annotated[int, msgspec.Meta(ge=0, le=NUMBER_LIMIT)]
    | Annotated[float, msgspec.Meta(ge=0, le=NUMBER_LIMIT)]
)
_UNSET = msgspec.UNSET


class StoredCase(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One case result of a stored run file, its fields checked."""

    caseId: str
    passed: bool
    score: _Number | msgspec.UnsetType = _UNSET
    durationMs: _Duration | msgspec.UnsetType = _UNSET
    notes: str | msgspec.UnsetType = _UNSET


def stored_cases_ok(
    cases: list[StoredCase], passed_cases: int, failed_cases: int
) -> bool:
    """``case_results_fast_ok`` of decoded case results, whose fields
    decoding has checked already."""
    return _ids_and_counts_agree(
        [case.caseId for case in cases],
        [case.passed for case in cases].count(True),
        len(cases),
        passed_cases,
        failed_cases,
    )


def stored_case_results(cases: list[StoredCase]) -> tuple[CaseResult, ...]:
    """The case results of decoded ones that ``stored_cases_ok`` takes (an
    absent field: ``None``).

    The cyclic garbage collector is paused while they are built: a run of
    100,000 case results would otherwise set off a dozen collections that
    walk every object built so far (a third of the build's time) and can
    find no cycle, since a case result holds only strings and numbers."""
    unset = _UNSET
    collecting = gc.isenabled()
    gc.disable()
    try:
        return tuple(
            map(
                CaseResult,
                [case.caseId for case in cases],
                [case.passed for case in cases],
                [None if case.score is unset else case.score for case in cases],
                [
                    None if case.durationMs is unset else case.durationMs
                    for case in cases
                ],
                [None if case.notes is unset else case.notes for case in cases],
            )
        )
    finally:
        if collecting:
            gc.enable()


def stored_case_columns(cases: list[StoredCase]) -> CaseColumns:
    """``case_columns_of(stored_case_results(cases))`` without building the
    case results."""
    unset = _UNSET
    return CaseColumns(
        tuple([case.caseId for case in cases]),
        tuple([case.passed for case in cases]),
        tuple([None if case.score is unset else case.score for case in cases]),
    )
