"""REST API of shadow recall records (the eval-store contract): /api/benchmarks/shadow."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.examples import example_shadow_record as shadow
from evals.models import (
    ShadowRecord,
)
from tests.api_errors import error_fields

pytestmark = pytest.mark.django_db


def test_shadow_mode_off_is_409_and_nothing_written(client: APIClient) -> None:
    response = client.post("/api/benchmarks/shadow", shadow("t1"), format="json")

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "feature_disabled"
    assert error["message"] == "eval shadow mode is disabled"
    assert error["settings"] == ["EVAL_HARNESS_ENABLED", "EVAL_SHADOW_MODE_ENABLED"]
    assert ShadowRecord.objects.count() == 0


def test_shadow_needs_the_harness_flag_too(client: APIClient, settings: Any) -> None:
    settings.EVAL_SHADOW_MODE_ENABLED = True

    response = client.post("/api/benchmarks/shadow", shadow("t1"), format="json")

    assert response.status_code == 409
    assert response.json()["error"]["settings"] == ["EVAL_HARNESS_ENABLED"]


def test_single_shadow_record_is_stored(
    client: APIClient, flags_on: Any, log_lines: Any
) -> None:
    response = client.post("/api/benchmarks/shadow", shadow("t1"), format="json")

    assert response.status_code == 201
    assert response.json() == {"created": 1, "unchanged": 0, "traceIds": ["t1"]}
    record = ShadowRecord.objects.get()
    assert record.document == shadow("t1")
    assert str(record.day) == "2026-03-06"
    assert log_lines("[Eval] shadow") == [
        "[Eval] shadow_records_ingested created=1 unchanged=0"
    ]


def test_shadow_batch_is_stored_and_idempotent(
    client: APIClient, flags_on: Any
) -> None:
    batch = {"records": [shadow("t1"), shadow("t2"), shadow("t3")]}

    first = client.post("/api/benchmarks/shadow", batch, format="json")
    again = client.post("/api/benchmarks/shadow", batch, format="json")

    assert first.status_code == 201
    assert first.json()["created"] == 3
    assert again.status_code == 200
    assert again.json() == {
        "created": 0,
        "unchanged": 3,
        "traceIds": ["t1", "t2", "t3"],
    }
    assert ShadowRecord.objects.count() == 3


def test_invalid_record_in_a_batch_writes_nothing(
    client: APIClient, flags_on: Any
) -> None:
    batch = {
        "records": [
            shadow("t1"),
            shadow("t2", recallMode="everything", durationMs=-1),
            shadow("t3", prompt="the raw prompt text"),
        ]
    }

    response = client.post("/api/benchmarks/shadow", batch, format="json")

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.records[1].durationMs": ["durationMs must be a non-negative number"],
        "$.records[1].recallMode": [
            "recallMode must be one of no_recall|minimal|full|graph_mode"
        ],
        "$.records[2].prompt": ["unknown property: prompt"],
    }
    assert ShadowRecord.objects.count() == 0


def test_shadow_conflict_is_409(client: APIClient, flags_on: Any) -> None:
    client.post("/api/benchmarks/shadow", shadow("t1"), format="json")

    response = client.post(
        "/api/benchmarks/shadow",
        {"records": [shadow("t2"), shadow("t1", durationMs=99)]},
        format="json",
    )

    assert response.status_code == 409
    assert response.json()["error"]["traceIds"] == ["t1"]
    assert ShadowRecord.objects.count() == 1


def test_shadow_batch_shape_errors(client: APIClient, flags_on: Any) -> None:
    not_list = client.post("/api/benchmarks/shadow", {"records": {}}, format="json")
    empty = client.post("/api/benchmarks/shadow", {"records": []}, format="json")
    extra = client.post(
        "/api/benchmarks/shadow", {"records": [], "x": 1}, format="json"
    )

    assert error_fields(not_list) == {
        "$.records": ["records must be a non-empty array"]
    }
    assert error_fields(empty) == {"$.records": ["records must be a non-empty array"]}
    assert error_fields(extra) == {"$.x": ["unknown property: x"]}


def test_shadow_list_and_detail(client: APIClient, flags_on: Any) -> None:
    client.post(
        "/api/benchmarks/shadow",
        {"records": [shadow("t1"), shadow("t2", recordedAt="2026-03-07T00:00:00Z")]},
        format="json",
    )

    day = client.get("/api/benchmarks/shadow?day=2026-03-06").json()
    detail = client.get("/api/benchmarks/shadow/t2")
    bad_day = client.get("/api/benchmarks/shadow?day=yesterday")

    assert [r["traceId"] for r in day["results"]] == ["t1"]
    assert detail.json()["recordedAt"] == "2026-03-07T00:00:00Z"
    assert bad_day.status_code == 400
