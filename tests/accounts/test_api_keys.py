"""API keys live in accounts: the stream's agents hold them, a key no app
holds authenticates as itself, rotation and revocation stop the old key."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.core.keys import key_hash, key_matches, key_new, key_prefix
from accounts.models import ApiKey
from accounts.services import api_key_create, api_key_revoke
from core.scopes import BENCHMARKS_READ, STREAM
from stream.models import Agent
from stream.services.agents import agent_create, agent_rotate_key

pytestmark = pytest.mark.django_db

INVALID = "Invalid or revoked API key."


def refused(answer: Any) -> tuple[int, str]:
    return answer.status_code, answer.json()["error"]["message"]


def bearer(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def test_a_new_key_has_its_prefix_and_only_its_hash_stored() -> None:
    new = key_new()
    assert key_prefix(new.key) == new.prefix
    assert key_matches(new.key, new.key_hash)
    assert not key_matches(new.key + "x", new.key_hash)
    assert new.key_hash == key_hash(new.key) != new.key
    assert key_prefix("not-a-key") is None
    assert key_prefix("xx_abc_def") is None


def test_an_agents_key_is_an_accounts_key_with_its_scopes(owner: Any) -> None:
    created = agent_create(name="ci", owner=owner, scopes=[BENCHMARKS_READ])
    key = ApiKey.objects.get(agent=created.agent)
    assert (key.name, key.owner, key.scopes) == ("ci", owner, [BENCHMARKS_READ])
    assert created.api_key.startswith(f"es_{key.prefix}_")
    assert key_matches(created.api_key, key.key_hash)


def test_an_agents_key_authenticates_as_the_agent(agent: Any, api_key: str) -> None:
    answer = bearer(api_key).get("/api/whoami")
    assert answer.status_code == 200
    assert answer.json() == {"user": agent.owner.username, "agent": agent.name}


def test_a_key_no_app_holds_authenticates_as_itself(owner: Any) -> None:
    created = api_key_create(name="reader", owner=owner, scopes=[BENCHMARKS_READ])
    client = bearer(created.key)
    assert client.get("/api/benchmarks/packs").status_code == 200
    assert client.get("/api/whoami").json() == {
        "user": owner.username,
        "agent": "reader",
    }
    status, message = refused(client.get("/api/cognitive-stream/thoughts"))
    assert status == 403
    assert "it needs the 'stream' scope" in message


def test_a_revoked_key_authenticates_nothing(owner: Any) -> None:
    created = api_key_create(name="gone", owner=owner, scopes=[STREAM])
    api_key_revoke(api_key=created.api_key)
    assert refused(bearer(created.key).get("/api/whoami")) == (401, INVALID)


def test_an_inactive_agents_key_authenticates_nothing(owner: Any) -> None:
    created = agent_create(name="eval-x", owner=owner, is_active=False)
    assert refused(bearer(created.api_key).get("/api/whoami")) == (401, INVALID)


def test_rotating_an_agents_key_stops_the_old_one_and_keeps_the_scopes(
    owner: Any,
) -> None:
    created = agent_create(name="ci", owner=owner, scopes=[STREAM, BENCHMARKS_READ])
    old_pk = created.agent.api_key.pk
    new_key = agent_rotate_key(agent=created.agent)
    assert refused(bearer(created.api_key).get("/api/whoami")) == (401, INVALID)
    assert bearer(new_key).get("/api/benchmarks/packs").status_code == 200
    agent = Agent.objects.select_related("api_key").get(name="ci")
    assert agent.api_key.scopes == [BENCHMARKS_READ, STREAM]
    assert agent.api_key.pk != old_pk
    assert ApiKey.objects.get(pk=old_pk).revoked_at is not None


def test_an_agents_key_is_read_in_one_query(
    agent: Any, api_key: str, django_assert_num_queries: Any
) -> None:
    from accounts.holders import key_principal
    from accounts.services import api_key_authenticate

    Agent.objects.filter(pk=agent.pk).update(last_seen_at=timezone.now())
    with django_assert_num_queries(1):
        found = api_key_authenticate(key=api_key)
        assert found is not None
        holder = key_principal(found)
        assert (holder.pk, holder.owner.username) == (agent.pk, agent.owner.username)


def test_an_agents_key_acts_for_the_agents_owner_of_the_day(
    owner: Any, stranger: Any
) -> None:
    created = agent_create(name="moved", owner=owner)
    Agent.objects.filter(pk=created.agent.pk).update(owner=stranger)
    answer = bearer(created.api_key).get("/api/whoami")
    assert answer.json() == {"user": stranger.username, "agent": "moved"}
