"""The publish path's plain-SQL reads and the counters update do what the
ORM queries they replace did: same rows, same ties broken the same way,
same limits, the same converted values."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from stream.core.thought_types import AWARENESS_TYPE
from stream.models import AgencyCounters, Agent, Thought, WorldSnapshot
from stream.selectors import (
    active_agent_by_prefix,
    counter_value,
    latest_facts,
    latest_facts_document,
    latest_facts_only,
    latest_snapshot,
    publish_reads,
    queue_holds_more_than,
    recent_content_hashes,
)
from stream.services.agents import agent_create
from stream.services.counters import counters_get, counters_increment

pytestmark = pytest.mark.django_db


def _thought(agent: Any, n: int, *, kind: str = "reflection", at: Any) -> Thought:
    return Thought(
        agent=agent,
        type=kind,
        content=f"t{n}",
        content_hash=f"{n:016x}",
        eligibility_reason="test",
        source="agent",
        metadata={},
        created_at=at,
    )


def test_recent_hashes_match_the_orm_query(agent: Any, owner: Any) -> None:
    other = agent_create(name="other", owner=owner).agent
    now = timezone.now()
    rows = [
        # Ties on created_at: the greater pk is newer.
        _thought(agent, n, at=now - timedelta(seconds=n // 3))
        for n in range(30)
    ]
    rows += [_thought(agent, 100 + n, kind=AWARENESS_TYPE, at=now) for n in range(5)]
    rows += [_thought(other, 200 + n, at=now + timedelta(seconds=1)) for n in range(5)]
    Thought.objects.bulk_create(rows)
    for limit in (1, 4, 7, 20, 100):
        expected = set(
            Thought.objects.filter(agent=agent)
            .exclude(type=AWARENESS_TYPE)
            .order_by("-created_at", "-pk")
            .values_list("content_hash", flat=True)[:limit]
        )
        got = recent_content_hashes(
            agent=agent, limit=limit, exclude_type=AWARENESS_TYPE
        )
        assert got == expected
        assert len(got) == min(limit, 30)


def test_queue_count_boundary(agent: Any) -> None:
    now = timezone.now()
    Thought.objects.bulk_create([_thought(agent, n, at=now) for n in range(5)])
    assert queue_holds_more_than(agent=agent, count=4)
    assert not queue_holds_more_than(agent=agent, count=5)
    assert not queue_holds_more_than(agent=agent, count=6)


def test_latest_facts_document_is_the_latest_snapshots(
    agent: Any, calm_facts: dict[str, Any]
) -> None:
    assert latest_facts_document(agent=agent) is None
    assert latest_facts_only(agent=agent) is None
    now = timezone.now()
    for n, at in enumerate([now, now, now - timedelta(seconds=5)]):
        facts = {"facts": dict(calm_facts, bot=dict(calm_facts["bot"], health=n))}
        WorldSnapshot.objects.create(
            agent=agent, facts=facts, content_hash=f"{n}", received_at=at
        )
        snapshot = latest_snapshot(agent=agent)
        assert snapshot is not None
        assert latest_facts_document(agent=agent) == snapshot.facts
        assert latest_facts_only(agent=agent) == latest_facts(agent=agent)[1]
    # The tie at `now` goes to the greater pk: health 1.
    assert latest_facts_document(agent=agent)["facts"]["bot"]["health"] == 1


def test_counter_value_before_and_after_the_row_exists(agent: Any) -> None:
    AgencyCounters.objects.filter(agent=agent).delete()
    assert counter_value(agent=agent, name="low_novelty_recorded") is None
    counters_get(agent=agent)
    AgencyCounters.objects.filter(agent=agent).update(low_novelty_recorded=7)
    assert counter_value(agent=agent, name="low_novelty_recorded") == 7


def test_agent_by_prefix_matches_the_orm_query(agent: Any, owner: Any) -> None:
    Agent.objects.filter(pk=agent.pk).update(last_seen_at=timezone.now())
    other = agent_create(name="retired", owner=owner).agent
    Agent.objects.filter(pk=other.pk).update(is_active=False)
    for prefix in (agent.key_prefix, other.key_prefix, "nope"):
        expected = (
            Agent.objects.select_related("owner")
            .filter(key_prefix=prefix, is_active=True)
            .first()
        )
        got = active_agent_by_prefix(prefix)
        if expected is None:
            assert got is None
            continue
        assert got is not None
        fields = Agent._meta.concrete_fields
        assert [getattr(got, f.attname) for f in fields] == [
            getattr(expected, f.attname) for f in fields
        ]
        user_fields = type(expected.owner)._meta.concrete_fields
        assert [getattr(got.owner, f.attname) for f in user_fields] == [
            getattr(expected.owner, f.attname) for f in user_fields
        ]
        assert got.last_seen_at is not None and got.last_seen_at.tzinfo is not None


def test_counters_increment_adds_and_creates(agent: Any) -> None:
    AgencyCounters.objects.filter(agent=agent).delete()
    counters_increment(agent=agent, llm_calls=2, goal_tags=0, drive_ticks=1)
    counters = counters_get(agent=agent)
    assert (counters.llm_calls, counters.goal_tags, counters.drive_ticks) == (2, 0, 1)
    counters_increment(agent=agent, llm_calls=3)
    counters.refresh_from_db()
    assert counters.llm_calls == 5
    with pytest.raises(ValueError, match="unknown counters"):
        counters_increment(agent=agent, llm_calls=1, bogus=1)


def test_publish_reads_are_the_three_reads_in_one_statement(
    agent: Any, calm_facts: dict[str, Any]
) -> None:
    def separate(facts: bool, limit: int) -> tuple[Any, int | None, set[str]]:
        return (
            latest_facts_document(agent=agent) if facts else None,
            counter_value(agent=agent, name="low_novelty_recorded"),
            recent_content_hashes(agent=agent, limit=limit, exclude_type=AWARENESS_TYPE)
            if limit
            else set(),
        )

    def check() -> None:
        for facts in (True, False):
            for limit in (0, 1, 4, 20):
                assert publish_reads(
                    agent=agent,
                    counter="low_novelty_recorded",
                    facts=facts,
                    hashes_limit=limit,
                    exclude_type=AWARENESS_TYPE,
                ) == separate(facts, limit)

    AgencyCounters.objects.filter(agent=agent).delete()
    check()  # no snapshot, no counters row, no thoughts
    now = timezone.now()
    WorldSnapshot.objects.create(
        agent=agent, facts={"facts": calm_facts}, content_hash="a", received_at=now
    )
    WorldSnapshot.objects.create(
        agent=agent,
        facts={"facts": dict(calm_facts, world={"biome": "desert"})},
        content_hash="b",
        received_at=now,
    )
    counters_get(agent=agent)
    AgencyCounters.objects.filter(agent=agent).update(low_novelty_recorded=5)
    rows = [_thought(agent, n, at=now - timedelta(seconds=n // 3)) for n in range(12)]
    rows += [_thought(agent, 50 + n, kind=AWARENESS_TYPE, at=now) for n in range(3)]
    Thought.objects.bulk_create(rows)
    check()
    document, value, _ = publish_reads(
        agent=agent,
        counter="low_novelty_recorded",
        facts=True,
        hashes_limit=0,
        exclude_type=AWARENESS_TYPE,
    )
    assert document["facts"]["world"] == {"biome": "desert"}
    assert value == 5
