"""The PR keepalive API's answers and their schema come from one definition
(the serializers of ``prkeepalive.api.outputs``), and its lists are paged
like every other list (``limit``/``offset``)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from prkeepalive.models import PullRequest
from tests.api_errors import error_fields
from tests.prkeepalive.test_pages_api import explain_doc, recorded  # noqa: F401

PULL = "/api/prkeepalive/repos/acme/widgets/pulls/7"


def _api(owner: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(owner)
    return api


def _response_schema(document: dict[str, Any], path: str, method: str) -> Any:
    content = document["paths"][path][method]["responses"]["200"]["content"]
    return _resolve(document, content["application/json"]["schema"])


def _resolve(document: dict[str, Any], schema: Any) -> Any:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _keys_match(document: dict[str, Any], schema: Any, value: Any) -> None:
    """Every object in ``value`` has exactly the properties its schema
    lists (recursively through objects and arrays of objects)."""
    schema = _resolve(document, schema)
    if "allOf" in schema:
        schema = _resolve(document, schema["allOf"][0])
    if isinstance(value, dict) and "properties" in schema:
        assert set(value) == set(schema["properties"]), sorted(value)
        for key, child in value.items():
            _keys_match(document, schema["properties"][key], child)
    elif isinstance(value, list) and "items" in schema:
        for item in value:
            _keys_match(document, schema["items"], item)


@pytest.mark.django_db
def test_every_answer_has_exactly_the_fields_its_schema_lists(
    owner: Any,
    recorded: PullRequest,  # noqa: F811
) -> None:
    api = _api(owner)
    document = api.get("/api/schema/?format=json").json()
    base = "/api/prkeepalive/repos/{owner}/{name}/pulls/{number}"
    for path, url in (
        (f"{base}/decisions", f"{PULL}/decisions"),
        (f"{base}/rounds", f"{PULL}/rounds"),
    ):
        schema = _response_schema(document, path, "get")
        assert schema.get("properties"), path  # not a stub "object"
        _keys_match(document, schema, api.get(url).json())
    explained = api.post(
        "/api/prkeepalive/explain", explain_doc(gate="success"), format="json"
    ).json()
    assert explained["decision"] is not None
    schema = _response_schema(document, "/api/prkeepalive/explain", "post")
    assert set(schema["properties"]) == {
        "handled",
        "ignoredReason",
        "decision",
        "lines",
        "words",
    }
    _keys_match(document, schema, explained)


@pytest.mark.django_db
def test_the_lists_page_by_limit_and_offset(
    owner: Any,
    recorded: PullRequest,  # noqa: F811
) -> None:
    api = _api(owner)

    def reasons(query: str) -> list[str]:
        body = api.get(f"{PULL}/decisions{query}").json()
        return [d["reason"] for d in body["decisions"]]

    assert reasons("") == ["ok", "gate-pending"]
    assert reasons("?limit=1") == ["ok"]
    assert reasons("?limit=1&offset=1") == ["gate-pending"]
    assert reasons("?offset=2") == []
    assert api.get(f"{PULL}/rounds?offset=1").json()["rounds"] == []
    refused = api.get(f"{PULL}/rounds?limit=501&offset=-1")
    assert refused.status_code == 400
    assert set(error_fields(refused)) == {"?limit", "?offset"}


def test_every_intake_outcome_and_refusal_has_its_http_status() -> None:
    from prkeepalive.api.webhook import RECEIPT_STATUS, REFUSAL_STATUS
    from prkeepalive.core.delivery import DeliveryRefused, Receipt

    assert set(RECEIPT_STATUS) == set(Receipt)
    assert set(REFUSAL_STATUS) == set(DeliveryRefused.__subclasses__())
    assert {RECEIPT_STATUS[r] for r in (Receipt.PONG, Receipt.DUPLICATE)} == {200}
    assert RECEIPT_STATUS[Receipt.QUEUED] == 202
