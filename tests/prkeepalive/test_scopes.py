"""The scope that guards PR keepalive's API is named after it:
``prkeepalive:read`` reaches the dry run and the records and nothing else;
keys holding ``benchmarks:read`` (which used to guard them) still do."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from core.scopes import (
    BENCHMARKS_READ,
    BENCHMARKS_WRITE,
    PRKEEPALIVE_READ,
    STREAM,
    key_may,
    required_scope,
)
from stream.services.agents import agent_create

pytestmark = pytest.mark.django_db

EXPLAIN = {
    "event": "issue_comment",
    "payload": {
        "action": "created",
        "issue": {"number": 7, "pull_request": {}},
        "comment": {"id": 9, "body": "@codex go", "user": {"login": "a"}},
    },
    "state": {"labels": ["agents:keepalive"], "pr": {"number": 7}},
}


def key_client(owner: Any, name: str, scopes: list[str]) -> APIClient:
    created = agent_create(name=name, owner=owner, scopes=scopes)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {created.api_key}")
    return client


def test_keepalive_api_needs_the_prkeepalive_read_scope() -> None:
    assert required_scope("POST", "/api/prkeepalive/explain") == PRKEEPALIVE_READ
    assert (
        required_scope("GET", "/api/prkeepalive/repos/a/b/pulls/1/decisions")
        == PRKEEPALIVE_READ
    )
    assert required_scope("POST", "/api/prkeepalive/repos/a/b/pulls/1/rounds") is None
    assert key_may([BENCHMARKS_READ], PRKEEPALIVE_READ)  # the old scope still works
    assert key_may([BENCHMARKS_WRITE], PRKEEPALIVE_READ)
    assert not key_may([PRKEEPALIVE_READ], BENCHMARKS_READ)


def test_a_prkeepalive_read_key_runs_the_dry_run_and_nothing_else(
    owner: Any,
) -> None:
    client = key_client(owner, "keepalive-reader", [PRKEEPALIVE_READ])
    answer = client.post("/api/prkeepalive/explain", EXPLAIN, format="json")
    assert answer.status_code == 200
    assert answer.json()["decision"]["reason"] == "gate-pending"
    missing = client.get("/api/prkeepalive/repos/acme/widgets/pulls/1/decisions")
    assert missing.status_code == 404
    assert client.get("/api/benchmarks/packs").status_code == 403
    assert client.get("/api/cognitive-stream/recent").status_code == 403


def test_old_benchmarks_read_keys_still_reach_the_dry_run(owner: Any) -> None:
    client = key_client(owner, "old-reader", [BENCHMARKS_READ])
    assert (
        client.post("/api/prkeepalive/explain", EXPLAIN, format="json").status_code
        == 200
    )
    refused = key_client(owner, "streamer", [STREAM]).post(
        "/api/prkeepalive/explain", EXPLAIN, format="json"
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == (
        "This API key may not POST /api/prkeepalive/explain: it needs the "
        "'prkeepalive:read' scope."
    )


def test_create_agent_grants_the_prkeepalive_read_scope(
    owner: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command(
        "create_agent", "ka", "--owner", owner.username, "--scope", "prkeepalive:read"
    )
    assert "scopes: prkeepalive:read" in capsys.readouterr().out
