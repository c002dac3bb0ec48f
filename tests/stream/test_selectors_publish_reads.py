"""The publish path's reads (``publish_reads``, ``queue_holds_more_than``,
``recent_content_hashes``) and the counters update: the newest rows with
ties broken by the greater pk, the limits, the values as stored, the
answers the separate queries give."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from stream.core.thought_types import AWARENESS_TYPE
from stream.models import AgencyCounters, Thought, WorldSnapshot
from stream.selectors import (
    latest_snapshot,
    publish_reads,
    queue_holds_more_than,
    recent_content_hashes,
)
from stream.services.counters import counters_get, counters_increment
from tests.builders import agent_make

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
    other = agent_make(name="other", owner=owner).agent
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


def orm_queue_holds_more_than(agent: Any, count: int) -> bool:
    return (
        Thought.objects.filter(agent=agent)
        .order_by()
        .values_list("pk")[count : count + 1]
        .exists()
    )


def orm_facts_document(agent: Any) -> Any:
    return (
        WorldSnapshot.objects.filter(agent=agent)
        .order_by("-received_at", "-pk")
        .values_list("facts", flat=True)
        .first()
    )


def orm_counter(agent: Any, name: str) -> int | None:
    return (
        AgencyCounters.objects.filter(agent=agent).values_list(name, flat=True).first()
    )


def test_queue_holds_more_than_answers_as_the_orm_query(agent: Any, owner: Any) -> None:
    other = agent_make(name="other", owner=owner).agent
    now = timezone.now()
    Thought.objects.bulk_create([_thought(other, 100 + n, at=now) for n in range(9)])
    for stored in range(6):
        if stored:
            _thought(agent, stored, at=now).save()
        for count in range(8):
            expected = orm_queue_holds_more_than(agent, count)
            assert queue_holds_more_than(agent=agent, count=count) == expected
            assert expected == (stored > count)


def test_publish_reads_facts_are_the_latest_snapshots(
    agent: Any, calm_facts: dict[str, Any]
) -> None:
    def document() -> Any:
        return publish_reads(
            agent=agent,
            counter="low_novelty_recorded",
            facts=True,
            hashes_limit=0,
            exclude_type=AWARENESS_TYPE,
        )[0]

    assert document() is None
    now = timezone.now()
    for n, at in enumerate([now, now, now - timedelta(seconds=5)]):
        facts = {"facts": dict(calm_facts, bot=dict(calm_facts["bot"], health=n))}
        WorldSnapshot.objects.create(
            agent=agent, facts=facts, content_hash=f"{n}", received_at=at
        )
        snapshot = latest_snapshot(agent=agent)
        assert snapshot is not None
        assert document() == snapshot.facts == orm_facts_document(agent)
    # The tie at `now` goes to the greater pk: health 1.
    assert document()["facts"]["bot"]["health"] == 1


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


def test_publish_reads_give_what_the_three_reads_give(
    agent: Any, calm_facts: dict[str, Any]
) -> None:
    def separate(facts: bool, limit: int) -> tuple[Any, int | None, set[str]]:
        return (
            orm_facts_document(agent) if facts else None,
            orm_counter(agent, "low_novelty_recorded"),
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
