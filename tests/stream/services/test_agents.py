"""Agents: keys shown once, stored hashed, authenticating the REST API."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from stream.models import Agent
from stream.selectors import agent_directory
from stream.services.agents import agent_create
from stream.services.thoughts import ThoughtInput, thoughts_publish

pytestmark = pytest.mark.django_db


def test_create_agent_prints_key_once_and_stores_only_its_hash(owner: Any) -> None:
    owner.is_superuser = True
    owner.save()
    out = StringIO()
    call_command("create_agent", "scout", stdout=out)
    key = out.getvalue().split("api key (shown once, store it now): ")[1].strip()
    agent = Agent.objects.get(name="scout")
    assert agent.owner == owner
    assert key.startswith(f"es_{agent.api_key.prefix}_")
    assert agent.api_key.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert key not in str(Agent.objects.filter(name="scout").values().first())


def test_create_agent_refuses_duplicate_name(agent: Any, owner: Any) -> None:
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_agent", "alpha", "--owner", "alice", stdout=StringIO())


def test_create_agent_needs_an_owner() -> None:
    with pytest.raises(CommandError, match="no owner"):
        call_command("create_agent", "lonely", stdout=StringIO())


def test_create_agent_refuses_non_slug_name(owner: Any) -> None:
    with pytest.raises(CommandError, match="must be a slug"):
        call_command("create_agent", "bad name!", "--owner", "alice", stdout=StringIO())
    assert not Agent.objects.exists()


def test_api_key_authenticates(agent_client: Any) -> None:
    response = agent_client.get("/api/whoami")
    assert response.status_code == 200
    assert response.json() == {"user": "alice", "agent": "alpha"}


def test_x_api_key_header_authenticates(api_key: str, anon_client: Any) -> None:
    anon_client.credentials(HTTP_X_API_KEY=api_key)
    assert anon_client.get("/api/whoami").status_code == 200


def test_revoked_agent_key_is_refused(agent: Any, agent_client: Any) -> None:
    Agent.objects.filter(pk=agent.pk).update(is_active=False)
    assert agent_client.get("/api/whoami").status_code == 401


def test_unauthenticated_api_call_is_refused(anon_client: Any) -> None:
    response = anon_client.get("/api/whoami")
    assert response.status_code in (401, 403)
    assert "error" in response.json()


def test_owner_and_member_see_the_agent_stranger_does_not(
    agent: Any, owner_client: Any, member: Any, stranger: Any, client: Any
) -> None:
    assert b">alpha</a></td>" in owner_client.get("/stream/").content
    client.force_login(member)
    assert b">alpha</a></td>" in client.get("/stream/").content
    client.force_login(stranger)
    assert b">alpha</a></td>" not in client.get("/stream/").content


def test_create_agent_grants_the_scopes_asked_for(owner: Any) -> None:
    out = StringIO()
    call_command(
        "create_agent",
        "ci",
        "--owner",
        owner.username,
        "--scope",
        "benchmarks:write",
        "--scope",
        "baselines:write,benchmarks:write",
        stdout=out,
    )

    assert Agent.objects.get(name="ci").api_key.scopes == [
        "baselines:write",
        "benchmarks:write",
    ]
    assert "scopes: baselines:write benchmarks:write" in out.getvalue()


def test_create_agent_refuses_an_unknown_scope(owner: Any) -> None:
    with pytest.raises(CommandError, match="unknown scope 'admin'"):
        call_command(
            "create_agent", "ci", "--owner", owner.username, "--scope", "admin"
        )
    assert not Agent.objects.filter(name="ci").exists()


def test_agent_list_hides_eval_run_agents_until_asked(
    agent: Any, owner: Any, owner_client: Any
) -> None:
    agent_create(name="eval-20260101000000-abcdef", owner=owner, is_active=False)
    agent_create(name="eval-fresh", owner=owner)

    default = owner_client.get("/stream/").content.decode()
    shown = owner_client.get("/stream/?eval_agents=shown").content.decode()

    assert ">alpha</a></td>" in default
    # An active agent whose name merely starts with eval- is a user's agent.
    assert ">eval-fresh</a></td>" in default
    assert "eval-20260101000000-abcdef" not in default
    assert (
        "1 eval run agent hidden (each end-to-end eval run streams into its own "
        '<code>eval-&lt;run&gt;</code> agent) · <a href="?eval_agents=shown">'
        "Show them</a>"
    ) in default
    assert (
        '>eval-20260101000000-abcdef</a> <span class="badge">inactive</span></td>'
    ) in shown
    assert 'Showing eval run agents · <a href="/stream/">Hide them</a>' in shown


def test_last_seen_counts_the_agents_own_thoughts_and_percepts(
    agent: Any, owner: Any, owner_client: Any
) -> None:
    published = timezone.now() - timedelta(minutes=5)
    thoughts_publish(
        agent=agent, items=[ThoughtInput(content="Quiet here.")], now=published
    )
    agent_create(name="idle", owner=owner)

    rows, _ = agent_directory(user=owner)
    html = owner_client.get("/stream/").content.decode()

    seen = {row.agent.name: row.last_active_at for row in rows}
    assert Agent.objects.get(pk=agent.pk).last_seen_at is None
    assert seen == {"alpha": published, "idle": None}
    assert f'<time datetime="{published.isoformat()}">' in html
    assert html.count("<td>never</td>") == 1


def test_keys_made_before_scopes_keep_stream_work_only(transactional_db: Any) -> None:
    """The migration that adds scopes gives every existing key ``stream``."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("stream", "0004_keepalive_poke_times")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    owner = old.get_model("auth", "User").objects.create(username="old-owner")
    old.get_model("stream", "Agent").objects.create(
        name="old", owner=owner, key_prefix="0011", key_hash="x" * 64
    )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    from stream.models import Agent

    assert Agent.objects.get(name="old").api_key.scopes == ["stream"]
