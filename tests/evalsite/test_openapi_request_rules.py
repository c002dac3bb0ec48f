"""The request schemas state what the views check, one rule at a time (the
schemathesis run in ``test_schemathesis`` checks them against the answers)."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db


def schema_document(client: Any) -> dict[str, Any]:
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def request_schema(document: dict[str, Any], path: str) -> dict[str, Any]:
    body = document["paths"][path]["post"]["requestBody"]
    assert body["required"] is True
    assert list(body["content"]) == ["application/json"]
    return body["content"]["application/json"]["schema"]


def test_seed_documents_are_declared_with_the_schema_that_validates_them(
    agent_client: Any,
) -> None:
    document = schema_document(agent_client)
    run = request_schema(document, "/api/benchmarks/runs")
    assert run["additionalProperties"] is False
    assert set(run["required"]) == {
        "schemaVersion",
        "runId",
        "benchmarkId",
        "status",
        "startedAt",
        "totalCases",
        "passedCases",
        "failedCases",
    }
    assert run["properties"]["schemaVersion"] == {"enum": [1]}
    assert run["properties"]["runId"]["maxLength"] == 200
    manifest = document["paths"]["/api/benchmarks/packs"]["post"]["requestBody"]
    assert set(manifest["content"]) == {"application/json", "multipart/form-data"}
    shadow = request_schema(document, "/api/benchmarks/shadow")
    single, batch = shadow["oneOf"]
    assert "traceId" in single["required"]
    assert batch["properties"]["records"]["items"] == single
    baseline = request_schema(document, "/api/benchmarks/baselines")
    assert baseline["oneOf"][0]["additionalProperties"] is False


def test_query_rules_the_views_apply_are_in_the_schema(agent_client: Any) -> None:
    paths = schema_document(agent_client)["paths"]

    def parameter(path: str, name: str) -> dict[str, Any]:
        (found,) = (p for p in paths[path]["get"]["parameters"] if p["name"] == name)
        return found

    gate = "/api/benchmarks/gate"
    assert parameter(gate, "minCases")["schema"]["minimum"] == 1
    assert parameter(gate, "snapshot")["schema"]["minLength"] == 1
    assert "allowEmptyValue" not in parameter(gate, "snapshot")
    assert parameter("/api/benchmarks/shadow", "day")["schema"]["format"] == "date"
    for path, name in (
        ("/api/benchmarks/runs", "limit"),
        ("/api/benchmarks/packs", "type"),
        ("/api/evals/runs", "verdict"),
        ("/api/tasks", "status"),
    ):
        assert parameter(path, name)["allowEmptyValue"] is True, (path, name)


def test_empty_query_values_answer_as_if_absent(agent_client: Any) -> None:
    for url in (
        "/api/benchmarks/runs?limit=&offset=",
        "/api/benchmarks/packs?type=&kind=&tag=",
        "/api/evals/runs?status=&verdict=",
        "/api/tasks?status=&limit=",
    ):
        assert agent_client.get(url).status_code == 200, url


def test_declared_integers_are_bounded_to_64_bits(agent_client: Any) -> None:
    schemas = schema_document(agent_client)["components"]["schemas"]
    ids = schemas["AckInputRequest"]["properties"]["thoughtIds"]["items"]
    assert (ids["minimum"], ids["maximum"]) == (1, 2**63 - 1)


def test_a_thought_type_the_service_reserves_is_not_schema_valid(
    agent_client: Any,
) -> None:
    schemas = schema_document(agent_client)["components"]["schemas"]
    kind = schemas["ThoughtInputRequest"]["properties"]["type"]
    assert kind["not"] == {
        "enum": ["environmental_awareness", "drive_tick", "keepalive"]
    }


@pytest.mark.parametrize("raw", [b"null", b"[]", b"true", b'"x"'])
def test_task_endpoints_refuse_a_body_that_is_not_an_object(
    agent_client: Any, raw: bytes
) -> None:
    from stream.models import Task

    response = agent_client.generic(
        "POST", "/api/tasks/claim", raw, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == [
        {"path": "$", "message": "the body must be a JSON object."}
    ]
    assert not Task.objects.filter(status="active").exists()


def test_request_rules_the_views_check_are_in_the_schema(agent_client: Any) -> None:
    document = schema_document(agent_client)
    schemas = document["components"]["schemas"]
    run = request_schema(document, "/api/benchmarks/runs")
    assert run["properties"]["startedAt"]["format"] == "date-time"
    assert run["properties"]["totalCases"]["maximum"] <= 2**53 - 1
    assert run["properties"]["metrics"]["additionalProperties"]["minimum"] == -(
        2**53 - 1
    )
    batches = request_schema(document, "/api/gridworld/batches")
    assert schemas[batches["$ref"].rsplit("/", 1)[1]]["additionalProperties"] is False
    (key,) = (
        p
        for p in document["paths"]["/api/evals/runs"]["post"]["parameters"]
        if p["name"] == "Idempotency-Key"
    )
    assert key["schema"] == {
        "type": "string",
        "maxLength": 255,
        "pattern": "^[ -~]*[!-~][ -~]*$",
    }
    explain = request_schema(document, "/api/prkeepalive/explain")
    assert explain["required"] == ["event", "payload"]
    assert explain["properties"]["payload"] == {"type": "object"}


def test_the_span_filters_the_view_checks_are_in_the_schema(agent_client: Any) -> None:
    paths = schema_document(agent_client)["paths"]
    parameters = {p["name"]: p for p in paths["/api/spans"]["get"]["parameters"]}

    assert sorted(parameters) == sorted(
        [
            "agent",
            "run",
            "case",
            "thought",
            "model",
            "source",
            "status",
            "since",
            "until",
            "trace",
            "limit",
            "cursor",
        ]
    )
    assert all(p["allowEmptyValue"] is True for p in parameters.values())
    schemas = {name: p["schema"] for name, p in parameters.items()}
    assert (schemas["limit"]["minimum"], schemas["limit"]["maximum"]) == (1, 500)
    assert (schemas["thought"]["minimum"], schemas["thought"]["maximum"]) == (
        1,
        2**63 - 1,
    )
    assert schemas["since"]["format"] == schemas["until"]["format"] == "date-time"
    assert schemas["trace"]["pattern"] == "^[0-9a-fA-F]{32}$"
    assert sorted(schemas["source"]["enum"]) == ["harness", "keepalive", "otlp"]
    assert sorted(schemas["status"]["enum"]) == ["error", "ok", "unset"]
    assert schemas["run"]["maxLength"] == 200
    (trace_id,) = paths["/api/traces/{trace_id}"]["get"]["parameters"]
    assert trace_id["schema"]["pattern"] == "^[0-9a-fA-F]{32}$"


def test_empty_span_filters_answer_as_if_absent(agent_client: Any) -> None:
    empty = "agent=&run=&case=&thought=&model=&source=&status=&since=&until="

    response = agent_client.get(f"/api/spans?{empty}&trace=&limit=&cursor=")

    assert response.status_code == 200
    assert response.json() == {"results": [], "nextCursor": None}


def test_otlp_ingestion_is_not_in_the_schema(agent_client: Any) -> None:
    # It speaks OTLP (protobuf or OTLP/JSON in, google.rpc.Status refusals
    # out), not this API's conventions; docs/traces.md describes it and
    # test_schemathesis_otlp checks it against a schema of its own.
    assert not any(
        path.startswith("/v1/") for path in schema_document(agent_client)["paths"]
    )
