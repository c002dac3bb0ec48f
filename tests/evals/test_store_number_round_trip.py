"""Every number the API accepts survives the store round trip.

A number past 2**53 - 1 in magnitude (or not finite) is refused with a 400
naming the field, on the way in and in a store file alike; everything the
API accepts is exported, imported into an empty database, exported again
byte for byte, and gated without one invalid file (the gate passes on the
two identical stores). Run on SQLite and on PostgreSQL, whose ``jsonb``
hands ``1e300`` back as a 301-digit integer.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from evals import cli
from evals.core.format_rules import CASE_COUNT_LIMIT, NUMBER_LIMIT
from evals.examples import example_manifest, example_run_summary, example_shadow_record
from evals.models import BaselineSnapshot, Benchmark, CaseResult, Run, ShadowRecord
from evals.services.baselines import baseline_snapshot_create

pytestmark = pytest.mark.django_db

SHADOW_NUMBERS = (
    "promptLength",
    "retrievalQueryLength",
    "recallResultLimit",
    "recalledMemoryCount",
    "contextChars",
    "durationMs",
)

# At and around every edge: zero, the limit, the float and 64-bit edges.
_edges = st.sampled_from(
    [
        *(0, 1, 0.0, -0.0, 0.5, 5e-324, 1e-300, 1e15, 1e16, 1e19, 1e300),
        *(NUMBER_LIMIT - 1, NUMBER_LIMIT, NUMBER_LIMIT + 1, 2**53 + 1),
        *(float(NUMBER_LIMIT), float(NUMBER_LIMIT + 1), 1.7976931348623157e308),
        *(2**63 - 1, 2**63, 10**400, math.inf),
    ]
)
_number = (
    _edges
    | _edges.map(lambda n: -n)
    | st.integers(NUMBER_LIMIT - 3, NUMBER_LIMIT + 3)
    | st.integers(-3, 3)
    | st.floats(allow_nan=False)
)


def in_range(value: Any, *, signed: bool) -> bool:
    low = -NUMBER_LIMIT if signed else 0
    return low <= value <= NUMBER_LIMIT  # False for NaN


def refused_by_path(response: Any, numbers: Any, *, signed: bool) -> bool:
    """A 400 naming fields (Infinity is no JSON: the body is refused whole)."""
    error = response.json()["error"]
    if any(type(n) is float and math.isinf(n) for n in numbers):
        return error["code"] == "parse_error"
    return bool(error["fields"]) and all(
        field["path"].startswith("$.") for field in error["fields"]
    )


def post(client: APIClient, path: str, document: Any) -> Any:
    body = json.dumps(document)  # Infinity, 1e+300 and 10**400 as written
    return client.generic("POST", path, body, "application/json")


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def wipe() -> None:
    for model in (CaseResult, Run, ShadowRecord, BaselineSnapshot, Benchmark):
        model.objects.all().delete()


def post_and_round_trip(
    client: APIClient,
    tmp_path: Path,
    shadows: list[dict],
    metrics: dict,
    score: Any,
    total: Any,
) -> None:
    wipe()
    assert post(client, "/api/benchmarks/packs", example_manifest()).status_code == 201
    for index, numbers in enumerate(shadows):
        record = example_shadow_record(f"t{index}", **numbers)
        response = post(client, "/api/benchmarks/shadow", record)
        valid = all(in_range(v, signed=False) for v in numbers.values())
        assert response.status_code == (201 if valid else 400), response.content
        if not valid:
            assert refused_by_path(response, numbers.values(), signed=False)
    run = example_run_summary(
        "r1", metrics=metrics, results={"case-0": True, "case-1": False}
    )
    run["caseResults"][0]["score"] = score
    response = post(client, "/api/benchmarks/runs", run)
    valid = all(in_range(v, signed=True) for v in [*metrics.values(), score])
    assert response.status_code == (201 if valid else 400), response.content
    if not valid:
        assert refused_by_path(response, [*metrics.values(), score], signed=True)
    # A later run of the same benchmark, its case counts at their edges.
    response = post(
        client,
        "/api/benchmarks/runs",
        example_run_summary("r2", passed=0, total=total, hour=11),
    )
    counted = total <= CASE_COUNT_LIMIT
    assert response.status_code == (201 if counted else 400), response.content
    if not counted:
        assert refused_by_path(response, [total], signed=False)
    if valid or counted:
        baseline_snapshot_create(snapshot_id="required-main")
    stored = ShadowRecord.objects.count(), Run.objects.count()

    one, two = tmp_path / "one", tmp_path / "two"
    call_command("eval_store_export", str(one), stdout=io.StringIO())
    wipe()
    call_command("eval_store_import", str(one), stdout=io.StringIO())
    assert (ShadowRecord.objects.count(), Run.objects.count()) == stored
    call_command("eval_store_export", str(two), stdout=io.StringIO())
    assert tree(one) == tree(two)

    report = tmp_path / "gate.json"
    argv = ["--base", str(one), "--candidate", str(two), "--json", str(report)]
    assert cli.main(argv) == 0
    nothing_invalid = {"benchmarks": 0, "runs": 0, "shadows": 0, "baselines": 0}
    gate = json.loads(report.read_text())
    assert gate["invalidArtifacts"] == {
        "base": nothing_invalid,
        "candidate": nothing_invalid,
    }
    if valid or counted:
        assert cli.main([*argv, "--snapshot-id", "required-main"]) == 0


_round_trips = given(
    shadows=st.lists(
        st.dictionaries(st.sampled_from(SHADOW_NUMBERS), _number, max_size=3),
        min_size=1,
        max_size=3,
    ),
    metrics=st.dictionaries(st.sampled_from(["m", "n"]), _number, max_size=2),
    score=_number,
    total=st.sampled_from(
        [0, 2, CASE_COUNT_LIMIT, float(CASE_COUNT_LIMIT), CASE_COUNT_LIMIT + 1]
        + [NUMBER_LIMIT, 2**63, 1e300]
    ),
)
_examples = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


# Slow by design: each example stores, exports, imports and gates a whole run.
@_examples
@_round_trips
def test_accepted_numbers_round_trip_through_export_import_and_gate(
    client: APIClient,
    flags_on: Any,
    tmp_path_factory: pytest.TempPathFactory,
    shadows: list[dict],
    metrics: dict,
    score: Any,
    total: Any,
) -> None:
    tmp_path = tmp_path_factory.mktemp("store")
    post_and_round_trip(client, tmp_path, shadows, metrics, score, total)


@pytest.mark.postgres
@_examples
@_round_trips
def test_accepted_numbers_round_trip_on_postgres(
    client: APIClient,
    flags_on: Any,
    tmp_path_factory: pytest.TempPathFactory,
    shadows: list[dict],
    metrics: dict,
    score: Any,
    total: Any,
) -> None:
    tmp_path = tmp_path_factory.mktemp("store")
    post_and_round_trip(client, tmp_path, shadows, metrics, score, total)


@pytest.mark.parametrize(
    ("field", "value"),
    [("promptLength", 1e300), ("contextChars", 2**53), ("durationMs", 1e16)],
)
def test_a_shadow_number_past_the_limit_is_400_and_nothing_stored(
    client: APIClient, flags_on: Any, field: str, value: Any
) -> None:
    response = post(
        client, "/api/benchmarks/shadow", example_shadow_record("t1", **{field: value})
    )

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == [
        {
            "path": f"$.{field}",
            "message": f"{field} must be a non-negative number at most "
            "9007199254740991",
        }
    ]
    assert ShadowRecord.objects.count() == 0


def test_a_metric_past_the_limit_is_400_and_nothing_stored(
    client: APIClient, flags_on: Any, pack: Benchmark
) -> None:
    response = post(
        client, "/api/benchmarks/runs", example_run_summary("r1", metrics={"m": -1e300})
    )

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == [
        {
            "path": "$.metrics.m",
            "message": "metrics.m must be a number between -9007199254740991 and "
            "9007199254740991",
        }
    ]
    assert Run.objects.count() == 0


def test_a_case_count_past_its_column_is_400_and_nothing_stored(
    client: APIClient, flags_on: Any, pack: Benchmark
) -> None:
    """On PostgreSQL 2**31 cases wrapped to a negative integer: a 500."""
    run = example_run_summary("r1", passed=0, total=2**31)

    response = post(client, "/api/benchmarks/runs", run)

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == [
        {"path": "$.failedCases", "message": "failedCases must be at most 2147483647"},
        {"path": "$.totalCases", "message": "totalCases must be at most 2147483647"},
    ]
    assert Run.objects.count() == 0
