"""The publish path's plain statements (``stream.selectors_publish``) give
what the ORM queries of ``stream.selectors`` give: the same facts document,
counter and newest hashes (ties to the greater pk, the limit, the excluded
type, other agents left out), and the same answer to the cap's check."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from stream import selectors as orm
from stream.core.thought_types import AWARENESS_TYPE
from stream.models import AgencyCounters, Thought, WorldSnapshot
from stream.selectors_publish import publish_reads, queue_holds_more_than
from stream.services.counters import counters_get
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


def both(agent: Any, facts: bool, limit: int) -> tuple[Any, Any]:
    arguments = {
        "agent": agent,
        "counter": "low_novelty_recorded",
        "facts": facts,
        "hashes_limit": limit,
        "exclude_type": AWARENESS_TYPE,
    }
    return publish_reads(**arguments), orm.publish_reads(**arguments)


def test_publish_reads_give_what_the_orm_queries_give(
    agent: Any, owner: Any, calm_facts: dict[str, Any]
) -> None:
    other = agent_make(name="other", owner=owner).agent

    def check() -> None:
        for facts in (True, False):
            for limit in (0, 1, 4, 20, 100):
                plain, reference = both(agent, facts, limit)
                assert plain == reference

    AgencyCounters.objects.filter(agent=agent).delete()
    check()  # no snapshot, no counters row, no thoughts
    now = timezone.now()
    for n, at in enumerate([now, now, now - timedelta(seconds=5)]):
        document = {"facts": dict(calm_facts, world={"biome": f"b{n}"})}
        WorldSnapshot.objects.create(
            agent=agent, facts=document, content_hash=f"{n}", received_at=at
        )
    WorldSnapshot.objects.create(
        agent=other, facts={"facts": calm_facts}, content_hash="o", received_at=now
    )
    counters_get(agent=agent)
    AgencyCounters.objects.filter(agent=agent).update(low_novelty_recorded=5)
    rows = [_thought(agent, n, at=now - timedelta(seconds=n // 3)) for n in range(30)]
    rows += [_thought(agent, 50 + n, kind=AWARENESS_TYPE, at=now) for n in range(3)]
    rows += [_thought(other, 90 + n, at=now + timedelta(seconds=1)) for n in range(5)]
    Thought.objects.bulk_create(rows)
    check()
    (document, value, hashes), _ = both(agent, True, 4)
    # The tie at `now` goes to the greater pk; awareness and the other
    # agent's thoughts are left out.
    assert document["facts"]["world"] == {"biome": "b1"}
    assert value == 5
    newest = sorted(rows[:30], key=lambda t: (t.created_at, t.pk), reverse=True)[:4]
    assert hashes == {t.content_hash for t in newest}


def test_the_caps_check_answers_as_the_orm_query(agent: Any, owner: Any) -> None:
    other = agent_make(name="other", owner=owner).agent
    now = timezone.now()
    Thought.objects.bulk_create([_thought(other, 100 + n, at=now) for n in range(9)])
    for stored in range(6):
        if stored:
            _thought(agent, stored, at=now).save()
        for count in range(8):
            expected = orm.queue_holds_more_than(agent=agent, count=count)
            assert queue_holds_more_than(agent=agent, count=count) == expected
            assert expected == (stored > count)
