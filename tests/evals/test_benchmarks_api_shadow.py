"""REST API of shadow recall records (the eval-store contract): /api/benchmarks/shadow."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from unittest.mock import patch

import orjson
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
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


def test_shadow_mode_off_refuses_a_valid_batch_too(client: APIClient) -> None:
    body = json.dumps({"records": [shadow("t1"), shadow("t2")]}).encode()

    response = client.generic(
        "POST", "/api/benchmarks/shadow", body, "application/json"
    )

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "feature_disabled"
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


def test_batch_of_new_and_stored_records_stores_only_the_new(
    client: APIClient, flags_on: Any, log_lines: Any
) -> None:
    client.post("/api/benchmarks/shadow", {"records": [shadow("t2")]}, format="json")
    before = {r.trace_id: r.pk for r in ShadowRecord.objects.all()}

    response = client.post(
        "/api/benchmarks/shadow",
        {"records": [shadow("t3"), shadow("t2"), shadow("t1")]},
        format="json",
    )

    assert response.status_code == 201
    assert response.json() == {
        "created": 2,
        "unchanged": 1,
        "traceIds": ["t1", "t2", "t3"],
    }
    rows = ShadowRecord.objects.order_by("pk")
    assert [r.trace_id for r in rows] == ["t2", "t1", "t3"]
    assert rows[0].pk == before["t2"]
    assert [r.document for r in rows] == [shadow("t2"), shadow("t1"), shadow("t3")]
    assert log_lines("[Eval] shadow") == [
        "[Eval] shadow_records_ingested created=1 unchanged=0",
        "[Eval] shadow_records_ingested created=2 unchanged=1",
    ]


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


# --- batch bodies: the decoded fast path answers as the ordinary path ---------

_STRING_FIELDS = ["traceId", "recordedAt", "sessionKey", "promptHash", "memoryIds"]
_NUMBER_FIELDS = ["promptLength", "contextChars", "durationMs"]
_odd_value = st.one_of(
    st.sampled_from(
        ["", " ", "\u00a0", "a\x00b", "\ud800", "caf\u00e9", "a/b", "..", "x" * 201]
    ),
    st.sampled_from(
        ["2026-03-06", "2026-02-30T10:00:00Z", "2026-03-07T23:30:00-05:00"]
    ),
    st.sampled_from([[], ["m"], [" "], ["m", "m"], [1], "m"]),
    st.sampled_from(
        [-1, 0, 2**53 - 1, 2**53, 2**63 - 1, 2**63, -0.0, 0.5, 1e16, 1.5e-7, True, None]
    ),
    st.floats(min_value=0, max_value=1e20),
)
_record = st.builds(
    lambda trace_id, changes, drop, extra: {
        **{
            key: value
            for key, value in shadow(trace_id, **changes).items()
            if key != drop
        },
        **extra,
    },
    st.sampled_from(["t1", "t2", "stored"]),
    st.one_of(
        # valid changes (records differ, floats written in exponent form) ...
        st.dictionaries(
            st.sampled_from(_NUMBER_FIELDS),
            st.integers(0, 2)
            | st.sampled_from([0.5, -0.0, 1e16, 1.5e-7, 2**53 - 1, 2**53, 2**63 - 1]),
            max_size=2,
        ),
        st.dictionaries(
            st.sampled_from(["sessionKey", "promptHash"]),
            st.sampled_from(["a", "caf\u00e9", "x y"]),
            max_size=2,
        ),
        # ... and doubtful ones
        st.dictionaries(
            st.sampled_from(
                _STRING_FIELDS + _NUMBER_FIELDS + ["injected", "recallMode"]
            ),
            _odd_value,
            max_size=2,
        ),
    ),
    st.sampled_from([None, None, None, None, None, "source", "schemaVersion"]),
    st.sampled_from([{}, {}, {}, {}, {}, {"prompt": "raw text"}]),
)


def _answer(client: APIClient, body: bytes, fast: bool) -> tuple[Any, ...]:
    """Status, answer, log lines and every row (raw column text) of posting
    ``body`` over one stored record, all rolled back afterwards."""
    from django.db import connection, transaction

    from evals.api import benchmarks as api

    class Undo(Exception):
        pass

    decode = api.decode_shadow_batch if fast else (lambda body: None)
    table = connection.ops.quote_name(ShadowRecord._meta.db_table)
    try:
        with transaction.atomic():
            client.post("/api/benchmarks/shadow", shadow("stored"), format="json")
            with patch.object(api, "decode_shadow_batch", decode):
                response = client.generic(
                    "POST", "/api/benchmarks/shadow", body, "application/json"
                )
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT trace_id, recorded_at, day, document FROM {table} "  # noqa: S608
                    "ORDER BY trace_id"
                )
                rows = [tuple(str(value) for value in row) for row in cursor.fetchall()]
            answer = (response.status_code, response.json(), rows)
            raise Undo
    except Undo:
        pass
    return answer


# Slow by design: 200 generated batches, each posted on both paths.
@hypothesis_settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(records=st.lists(_record, min_size=1, max_size=3), spaced=st.booleans())
def test_decoded_batches_answer_and_store_as_the_ordinary_path(
    client: APIClient, flags_on: Any, records: list[dict[str, Any]], spaced: bool
) -> None:
    body = json.dumps(
        {"records": records}, separators=(", ", ": ") if spaced else (",", ":")
    ).encode("utf-8", "surrogatepass")

    assert _answer(client, body, fast=True) == _answer(client, body, fast=False)


def test_decoded_batch_path_is_taken_and_stores_the_same_text(
    client: APIClient, flags_on: Any, log_lines: Any
) -> None:
    from django.db import connection

    from evals.api import benchmarks as api

    records = [shadow("t1"), shadow("t2", durationMs=1.5e-7, contextChars=0.25)]
    body = json.dumps({"records": records}).encode()

    with patch.object(
        api, "shadow_batch_ingest", wraps=api.shadow_batch_ingest
    ) as fast:
        response = client.generic(
            "POST", "/api/benchmarks/shadow", body, "application/json"
        )

    assert fast.call_count == 1
    assert response.status_code == 201
    assert response.json() == {"created": 2, "unchanged": 0, "traceIds": ["t1", "t2"]}
    assert log_lines("[Eval] shadow") == [
        "[Eval] shadow_records_ingested created=2 unchanged=0"
    ]
    table = connection.ops.quote_name(ShadowRecord._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT document FROM {table} ORDER BY trace_id")  # noqa: S608
        stored = [row[0] for row in cursor.fetchall()]
    if connection.vendor == "sqlite":
        # The text the ordinary path writes: orjson's, 1.5e-7 included.
        assert stored == [orjson.dumps(record).decode() for record in records]
    assert [r.document for r in ShadowRecord.objects.order_by("trace_id")] == records


@hypothesis_settings(max_examples=300)
@given(
    moment=st.datetimes(
        timezones=st.sampled_from([UTC, timezone(timedelta(hours=-5, minutes=-30))])
        | st.timezones()
    )
)
def test_instant_parameter_is_the_backends_own(moment: datetime) -> None:
    from django.db import connection

    from evals.services.shadow_records import _instant_param

    assert _instant_param()(moment) == connection.ops.adapt_datetimefield_value(moment)


def test_batch_over_the_limit_is_refused_alike_and_writes_nothing(
    client: APIClient, flags_on: Any
) -> None:
    from evals.services.benchmarks import MAX_SHADOW_BATCH

    records = [shadow(f"t{n}") for n in range(MAX_SHADOW_BATCH + 1)]
    body = json.dumps({"records": records}).encode()

    fast = _answer(client, body, fast=True)

    assert fast == _answer(client, body, fast=False)
    status, answer, rows = fast
    assert status == 400
    assert answer["error"]["fields"] == [
        {"path": "$.records", "message": "records must hold at most 1000 records"}
    ]
    assert [row[0] for row in rows] == ["stored"]
