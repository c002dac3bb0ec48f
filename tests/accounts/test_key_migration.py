"""The migration that moves agents' keys into accounts keeps every key
working: the same Bearer key authenticates afterwards, with the same scopes;
the way back puts the keys home."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.test import APIClient

from accounts.core.keys import key_new

BEFORE = [("stream", "0007_thought_agent_newest_index")]


def migrate(targets: list[tuple[str, str]] | None = None) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(targets or executor.loader.graph.leaf_nodes())
    executor.loader.build_graph()
    return executor


def test_a_key_made_before_the_move_authenticates_after_it(
    transactional_db: Any,
) -> None:
    executor = migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    owner = old.get_model("auth", "User").objects.create(username="old-owner")
    new = key_new()
    old.get_model("stream", "Agent").objects.create(
        name="old",
        owner=owner,
        key_prefix=new.prefix,
        key_hash=new.key_hash,
        scopes=["stream", "benchmarks:read"],
    )
    migrate()

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {new.key}")
    whoami = client.get("/api/whoami")
    assert whoami.status_code == 200
    assert whoami.json() == {"user": "old-owner", "agent": "old"}
    assert client.get("/api/benchmarks/packs").status_code == 200
    refused = client.post(
        "/api/benchmarks/baselines", {"snapshotId": "main"}, format="json"
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == (
        "This API key may not POST /api/benchmarks/baselines: it needs the "
        "'baselines:write' scope."
    )
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION=f"Bearer {new.key}x")
    assert wrong.get("/api/whoami").status_code == 401


@pytest.mark.django_db(transaction=True)
def test_the_way_back_puts_the_keys_home() -> None:
    from django.contrib.auth import get_user_model

    from stream.services.agents import agent_create

    owner = get_user_model().objects.create(username="o")
    created = agent_create(name="back", owner=owner, scopes=["stream"])
    prefix = created.agent.api_key.prefix
    key_hash = created.agent.api_key.key_hash
    executor = migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    agent = old.get_model("stream", "Agent").objects.get(name="back")
    assert (agent.key_prefix, agent.key_hash, agent.scopes) == (
        prefix,
        key_hash,
        ["stream"],
    )
    from accounts.models import ApiKey

    assert not ApiKey.objects.exists()
    migrate()
