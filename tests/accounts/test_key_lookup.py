"""``accounts.selectors.key_by_prefix`` (one cached plain statement) gives
what the ORM query ``key_by_prefix_orm`` gives: the same key, owner and
holder, every field as the ORM loads it, and nothing left to load later."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.core.keys import key_prefix
from accounts.models import ApiKey
from accounts.selectors import key_by_prefix, key_by_prefix_orm
from accounts.services import api_key_create, api_key_revoke
from core.scopes import BENCHMARKS_READ, STREAM
from stream.models import Agent
from stream.services.agents import agent_create

pytestmark = pytest.mark.django_db


def fields(instance: Any) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.fields}


def same(plain: ApiKey, orm: ApiKey) -> None:
    assert fields(plain) == fields(orm)
    assert fields(plain.owner) == fields(orm.owner)


def test_an_agents_key_comes_with_its_owner_and_agent_in_one_query(owner: Any) -> None:
    created = agent_create(name="scout", owner=owner, scopes=[STREAM, BENCHMARKS_READ])
    prefix = key_prefix(created.api_key)
    orm = key_by_prefix_orm(prefix)
    with CaptureQueriesContext(connection) as queries:
        plain = key_by_prefix(prefix)
        assert plain is not None and orm is not None
        agent = plain.agent
        assert agent.api_key is plain
        assert plain.owner.username == "alice"
    assert len(queries) == 1
    same(plain, orm)
    assert fields(agent) == fields(orm.agent)
    assert plain.scopes == orm.scopes == sorted([STREAM, BENCHMARKS_READ])
    assert plain.created_at == orm.created_at and plain.created_at.tzinfo is not None


def test_a_key_no_app_holds_has_no_holder_and_reading_it_makes_no_query(
    owner: Any,
) -> None:
    created = api_key_create(name="reader", owner=owner, scopes=[BENCHMARKS_READ])
    plain = key_by_prefix(created.api_key.prefix)
    orm = key_by_prefix_orm(created.api_key.prefix)
    assert plain is not None and orm is not None
    same(plain, orm)
    with (
        CaptureQueriesContext(connection) as queries,
        pytest.raises(Agent.DoesNotExist),
    ):
        plain.agent  # noqa: B018
    assert len(queries) == 0


def test_revoked_and_unknown_prefixes_find_nothing(owner: Any) -> None:
    created = api_key_create(name="gone", owner=owner)
    api_key_revoke(api_key=created.api_key)
    assert key_by_prefix(created.api_key.prefix) is None
    assert key_by_prefix_orm(created.api_key.prefix) is None
    assert key_by_prefix("0000000000ab") is None


def test_an_inactive_agents_key_is_found_with_its_agent(owner: Any) -> None:
    # The holder refuses it (accounts.holders.KeyRefused); the read does not.
    created = agent_create(name="sleeper", owner=owner)
    Agent.objects.filter(pk=created.agent.pk).update(
        is_active=False, last_seen_at=timezone.now()
    )
    plain = key_by_prefix(key_prefix(created.api_key))
    assert plain is not None
    assert plain.agent.is_active is False
    assert plain.agent.last_seen_at is not None
