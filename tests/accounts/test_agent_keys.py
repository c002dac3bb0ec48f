"""An agent holds several named keys: each authenticates as the agent in one
query, says which key it was (throttling, provenance), may do only what its
own scopes allow, stops at its expiry with the revoked key's 401, and notes
when it was last used at most once a minute."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.auth import INVALID
from accounts.core.keys import key_prefix
from accounts.holders import key_of, key_principal
from accounts.models import ApiKey
from accounts.selectors import key_by_prefix, key_by_prefix_orm
from accounts.services import (
    KeyExpiryPast,
    api_key_authenticate,
    api_key_create,
    api_key_used,
)
from core.scopes import BENCHMARKS_READ, STREAM, UnknownScope
from stream.models import Agent, AgentKey
from stream.services.agents import (
    agent_create,
    agent_key_create,
    agent_key_revoke,
    agent_key_scopes_set,
    agent_rotate_key,
)

pytestmark = pytest.mark.django_db


def bearer(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def fields(instance: Any) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.fields}


def test_a_second_key_authenticates_as_the_agent_and_says_which_key_it_was(
    owner: Any,
) -> None:
    created = agent_create(name="scout", owner=owner)
    second = agent_key_create(agent=created.agent, name="ci", scopes=[BENCHMARKS_READ])
    answer = bearer(second.key).get("/api/whoami")
    assert answer.status_code == 200
    assert answer.json() == {"user": "alice", "agent": "scout"}
    found = api_key_authenticate(key=second.key)
    assert found is not None
    principal = key_principal(found)
    assert isinstance(principal, Agent) and principal.pk == created.agent.pk
    assert key_of(principal) is found
    # The first key still works, with its own scopes only.
    assert bearer(created.api_key).get("/api/whoami").status_code == 200
    assert bearer(created.api_key).get("/api/benchmarks/packs").status_code == 403
    assert bearer(second.key).get("/api/benchmarks/packs").status_code == 200
    assert bearer(second.key).get("/api/cognitive-stream/recent").status_code == 403


def test_a_second_key_is_read_with_its_agent_in_one_query_as_the_orm_reads_it(
    owner: Any,
) -> None:
    created = agent_create(name="scout", owner=owner)
    second = agent_key_create(agent=created.agent, name="ci")
    Agent.objects.filter(pk=created.agent.pk).update(last_seen_at=timezone.now())
    prefix = key_prefix(second.key)
    assert prefix is not None
    orm = key_by_prefix_orm(prefix)
    with CaptureQueriesContext(connection) as queries:
        plain = key_by_prefix(prefix)
        assert plain is not None and orm is not None
        agent = key_principal(plain)
        assert agent.pk == created.agent.pk
        assert plain.agent_key.api_key is plain
    assert len(queries) == 1
    assert fields(plain) == fields(orm)
    assert fields(plain.agent_key) == fields(orm.agent_key)
    assert fields(plain.agent_key.agent) == fields(orm.agent_key.agent)


def test_every_key_an_agent_is_made_with_or_rotated_to_is_listed_as_its_key(
    owner: Any,
) -> None:
    created = agent_create(name="scout", owner=owner)
    new_key = agent_rotate_key(agent=created.agent)
    listed = set(
        AgentKey.objects.filter(agent=created.agent).values_list(
            "api_key__prefix", flat=True
        )
    )
    assert listed == {key_prefix(created.api_key), key_prefix(new_key)}


def test_an_expired_key_gets_the_revoked_keys_401(owner: Any) -> None:
    created = agent_create(name="scout", owner=owner)
    soon = agent_key_create(
        agent=created.agent,
        name="soon",
        expires_at=timezone.now() + timedelta(hours=1),
    )
    assert bearer(soon.key).get("/api/whoami").status_code == 200
    ApiKey.objects.filter(pk=soon.api_key.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    answer = bearer(soon.key).get("/api/whoami")
    assert answer.status_code == 401
    assert answer.json()["error"]["message"] == INVALID
    prefix = soon.api_key.prefix
    assert key_by_prefix(prefix) is None and key_by_prefix_orm(prefix) is None


def test_a_key_cannot_be_made_already_expired_or_with_an_unknown_scope(
    owner: Any,
) -> None:
    created = agent_create(name="scout", owner=owner)
    before = ApiKey.objects.count()
    with pytest.raises(KeyExpiryPast):
        agent_key_create(agent=created.agent, name="late", expires_at=timezone.now())
    with pytest.raises(UnknownScope):
        agent_key_create(agent=created.agent, name="odd", scopes=["root"])
    with pytest.raises(KeyExpiryPast):
        api_key_create(
            name="late", owner=owner, expires_at=timezone.now() - timedelta(days=1)
        )
    assert ApiKey.objects.count() == before
    assert AgentKey.objects.filter(agent=created.agent).count() == 1


def test_last_used_is_written_once_a_minute_not_on_every_request(owner: Any) -> None:
    created = agent_create(name="scout", owner=owner)
    key = created.agent.api_key
    client = bearer(created.api_key)
    assert client.get("/api/whoami").status_code == 200
    first = ApiKey.objects.get(pk=key.pk).last_used_at
    assert first is not None
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/api/whoami").status_code == 200
    writes = [q["sql"] for q in queries if q["sql"].startswith("UPDATE")]
    assert writes == []
    assert ApiKey.objects.get(pk=key.pk).last_used_at == first


def test_last_used_moves_on_after_a_minute_and_only_one_writer_wins(
    owner: Any,
) -> None:
    created = api_key_create(name="reader", owner=owner)
    now = timezone.now()
    assert api_key_used(api_key=created.api_key, now=now) is True
    stale = ApiKey.objects.get(pk=created.api_key.pk)
    fresh = ApiKey.objects.get(pk=created.api_key.pk)
    later = now + timedelta(seconds=61)
    # Two requests that read the key before either wrote: one write.
    assert api_key_used(api_key=stale, now=later) is True
    assert api_key_used(api_key=fresh, now=later + timedelta(seconds=1)) is False
    assert ApiKey.objects.get(pk=created.api_key.pk).last_used_at == later
    assert api_key_used(api_key=stale, now=later + timedelta(seconds=30)) is False


def test_revoking_one_key_leaves_the_agents_other_keys_working(owner: Any) -> None:
    created = agent_create(name="scout", owner=owner)
    second = agent_key_create(agent=created.agent, name="ci")
    agent_key_revoke(agent=created.agent, api_key=second.api_key)
    assert bearer(second.key).get("/api/whoami").status_code == 401
    assert bearer(created.api_key).get("/api/whoami").status_code == 200


def test_changing_a_keys_scopes_applies_from_its_next_request(owner: Any) -> None:
    created = agent_create(name="scout", owner=owner)
    client = bearer(created.api_key)
    assert client.get("/api/benchmarks/packs").status_code == 403
    stored = agent_key_scopes_set(
        agent=created.agent,
        api_key=created.agent.api_key,
        scopes=[BENCHMARKS_READ, STREAM],
    )
    assert stored == [BENCHMARKS_READ, STREAM]
    assert client.get("/api/benchmarks/packs").status_code == 200
    with pytest.raises(UnknownScope):
        agent_key_scopes_set(
            agent=created.agent, api_key=created.agent.api_key, scopes=["root"]
        )
    assert ApiKey.objects.get(pk=created.agent.api_key.pk).scopes == stored
