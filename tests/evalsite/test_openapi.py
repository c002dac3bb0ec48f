"""The OpenAPI schema generates without warnings, states the limits the API
enforces; Swagger UI works offline."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from core.errors import SchemaInvalid
from evals import facade
from gridworld.core.config import parse_batch_config

pytestmark = pytest.mark.django_db


def test_schema_generates_without_warnings() -> None:
    out, err = StringIO(), StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out, stderr=err)
    assert "openapi: 3" in out.getvalue()
    assert err.getvalue() == ""


def test_schema_endpoint_serves_yaml(owner_client: Any) -> None:
    response = owner_client.get("/api/schema/")
    assert response.status_code == 200
    assert b"openapi: 3" in response.content


def test_swagger_ui_uses_local_assets(owner_client: Any) -> None:
    response = owner_client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn" not in html.lower()
    assert "<script>" not in html  # no inline scripts (CSP script-src 'self')


def test_schema_declares_the_configured_list_limits(
    settings: Any, owner_client: Any, agent_client: Any
) -> None:
    """The thoughts batch and the ack ids state their item limits as the
    schema's maxItems, from the settings in force, and the API holds to them:
    a batch at the limit is published, one past it refused with a 400."""
    settings.STREAM_MAX_BATCH = 3
    settings.STREAM_MAX_ACK_IDS = 5
    schemas = owner_client.get("/api/schema/?format=json").json()["components"][
        "schemas"
    ]
    batch = schemas["ThoughtBatchInputRequest"]["properties"]["thoughts"]
    ack = schemas["AckInputRequest"]["properties"]["thoughtIds"]
    assert (batch["minItems"], batch["maxItems"]) == (1, 3)
    assert (ack["minItems"], ack["maxItems"]) == (1, 5)

    def publish(count: int) -> Any:
        body = {"thoughts": [{"content": f"I see tree {i}."} for i in range(count)]}
        return agent_client.post("/api/cognitive-stream/thoughts", body, format="json")

    assert publish(3).status_code == 201
    refused = publish(4)
    assert refused.status_code == 400
    assert [f["path"] for f in refused.json()["error"]["fields"]] == ["$.thoughts"]
    ids = {"thoughtIds": list(range(1, 7))}
    refused = agent_client.post("/api/cognitive-stream/ack", ids, format="json")
    assert refused.status_code == 400
    assert [f["path"] for f in refused.json()["error"]["fields"]] == ["$.thoughtIds"]


def test_gridworld_batch_schema_states_the_config_limits(owner_client: Any) -> None:
    """Every bound the batch schema declares is the one the config check
    enforces: the bound itself is accepted, one past it refused on that field."""
    schemas = owner_client.get("/api/schema/?format=json").json()["components"][
        "schemas"
    ]
    properties = schemas["GridworldBatchCreateRequest"]["properties"]
    bounded = {
        name: (field["minimum"], field["maximum"])
        for name, field in properties.items()
        if "maximum" in field
    }
    assert set(bounded) == {
        "episodes", "seed", "drift_period", "max_steps", "budget", "lane_size",
        "repeats",
    }  # fmt: skip
    # repeats is the run's, not the gridworld config's: the facade checks it.
    low, high = bounded.pop("repeats")
    assert facade.repeats_parse(low) == low
    assert facade.repeats_parse(high) == high
    for value in (low - 1, high + 1):
        with pytest.raises(SchemaInvalid) as refused:
            facade.repeats_parse(value)
        assert [p.path for p in refused.value.problems] == ["repeats"], value
    for name, (low, high) in bounded.items():
        base = {"map": "simple", "episodes": 1, "seed": 0}
        for value in (low, high):
            parse_batch_config({**base, name: value})
        for value in (low - 1, high + 1):
            with pytest.raises(SchemaInvalid) as refused:
                parse_batch_config({**base, name: value})
            assert [p.path for p in refused.value.problems] == [name], (name, value)
    for name, kinds in (("proposer", "ProposerEnum"), ("governor", "GovernorEnum")):
        assert properties[name] == {"$ref": f"#/components/schemas/{kinds}"}
        for kind in schemas[kinds]["enum"]:
            parse_batch_config({"map": "simple", "episodes": 1, name: kind})


def test_list_parameters_state_the_bounds_the_api_enforces(
    settings: Any, staff_client: Any, agent_client: Any
) -> None:
    """Every ``limit``/``offset`` the schema bounds: its maximum is answered,
    one past it is a 400 naming that parameter."""
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = True
    paths = staff_client.get("/api/schema/?format=json").json()["paths"]
    tried = []
    for path, operations in paths.items():
        parameters = operations.get("get", {}).get("parameters", [])
        bounded = [p for p in parameters if p["name"] in ("limit", "offset")]
        if "{" in path or not bounded:
            continue
        client = (
            agent_client
            if path.startswith(("/api/cognitive", "/api/tasks"))
            else staff_client
        )
        # A required query parameter (search's ``q``) gets a plain value.
        required = {
            p["name"]: "creeper"
            for p in parameters
            if p.get("required") and p.get("in") == "query"
        }
        for parameter in bounded:
            name, schema = parameter["name"], parameter["schema"]
            assert schema["minimum"] in (0, 1) and schema["maximum"] >= 100, path
            ok = client.get(path, {**required, name: schema["maximum"]})
            assert ok.status_code == 200, (path, name, ok.content[:200])
            refused = client.get(path, {**required, name: schema["maximum"] + 1})
            assert refused.status_code == 400, (path, name)
            fields = refused.json()["error"]["fields"]
            assert [f["path"] for f in fields] == [f"?{name}"], (path, fields)
            tried.append((path, name))
    assert len(tried) >= 12
