"""``thoughts_store`` stores the thoughts and their counters together: the
rows and instances ``save``/``bulk_create`` make, ids in the given order,
the counters added, nothing on a failure; inside an outer transaction and
outside one."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.db.models.signals import post_save, pre_save
from django.utils import timezone

from stream.models import AgencyCounters, Thought
from stream.services.counters import COUNTER_FIELDS, counters_get, counters_increment
from stream.services.thought_store import thoughts_store
from tests.builders import agent_make

OUTSIDE = pytest.mark.django_db(transaction=True)
INSIDE = pytest.mark.django_db


NOW = timezone.now()
# Text that quoting in a statement or an array literal could get wrong.
CONTENTS = [
    "caf\u00e9 \u2014 'quoted' \\ back",
    '{x,y} "NULL" , }{',
    "NULL",
    "",
    "  spaced\ttab\nline  ",
    "\U0001f600 E'\\x00'",
]


def _thoughts(agent: Any, n: int, now: Any = NOW) -> list[Thought]:
    made = []
    for i in range(n):
        goal = i % 2 == 0
        made.append(
            Thought(
                agent=agent,
                type="plan" if i % 3 else "reflection",
                content=CONTENTS[i % len(CONTENTS)] + f" {i}",
                content_hash=f"{i:016x}",
                convert_eligible=goal,
                eligibility_reason="eligible" if goal else "no_goal",
                grounding_passed=True if goal else None,
                goal_key=f"collect:oak_log_{i}" if goal else None,
                novelty="low" if i % 4 == 3 else "high",
                broadcast=i % 4 != 3,
                source="agent",
                eval_run_id="" if i % 2 else "run-1",
                metadata={"source": "agent", "n": i, "nested": {"x": [1.5, None]}},
                created_at=now - timedelta(milliseconds=i),
            )
        )
    return made


def _the_orm_way(agent: Any, thoughts: list[Thought], increments: Any) -> None:
    with transaction.atomic():
        if len(thoughts) == 1:
            thoughts[0].save()
        else:
            Thought.objects.bulk_create(thoughts)
        counters_increment(agent=agent, **increments)


INCREMENTS = {"llm_calls": 3, "goal_tags": 2, "content_suppressions": 0}


def _row(thought: Thought) -> dict[str, Any]:
    row = Thought.objects.filter(pk=thought.pk).values().get()
    return {k: v for k, v in row.items() if k not in ("id", "agent_id")}


def _instance(thought: Thought) -> dict[str, Any]:
    state = thought._state
    fields = {
        k: v for k, v in vars(thought).items() if k not in ("_state", "id", "agent_id")
    }
    return {
        "fields": fields,
        "adding": state.adding,
        "db": state.db,
        "cached": sorted(state.fields_cache),
        "pk_type": type(thought.pk),
    }


def _counters(agent: Any) -> dict[str, int]:
    counters = AgencyCounters.objects.get(agent=agent)
    return {name: getattr(counters, name) for name in COUNTER_FIELDS}


def _same_as_the_orm(agent: Any, owner: Any, n: int) -> None:
    twin = agent_make(name="twin", owner=owner).agent
    counters_get(agent=agent)
    counters_get(agent=twin)
    for _ in range(2):
        stored, expected = _thoughts(agent, n), _thoughts(twin, n)
        thoughts_store(agent=agent, thoughts=stored, increments=INCREMENTS)
        _the_orm_way(twin, expected, INCREMENTS)
        assert [_row(t) for t in stored] == [_row(t) for t in expected]
        assert [_instance(t) for t in stored] == [_instance(t) for t in expected]
        assert [t.pk for t in stored] == sorted(t.pk for t in stored)
    assert _counters(agent) == _counters(twin)
    assert _counters(agent)["llm_calls"] == 6


@OUTSIDE
@pytest.mark.parametrize("n", [1, 2, 7])
def test_stores_what_the_orm_stores_outside_a_transaction(
    agent: Any, owner: Any, n: int
) -> None:
    _same_as_the_orm(agent, owner, n)


@INSIDE
@pytest.mark.parametrize("n", [1, 7])
def test_stores_what_the_orm_stores_inside_a_transaction(
    agent: Any, owner: Any, n: int
) -> None:
    _same_as_the_orm(agent, owner, n)


@OUTSIDE
def test_a_missing_counters_row_is_created_as_the_orm_does(
    agent: Any, owner: Any
) -> None:
    twin = agent_make(name="twin", owner=owner).agent
    AgencyCounters.objects.filter(agent__in=[agent, twin]).delete()
    stored, expected = _thoughts(agent, 3), _thoughts(twin, 3)
    thoughts_store(agent=agent, thoughts=stored, increments=INCREMENTS)
    _the_orm_way(twin, expected, INCREMENTS)
    assert _counters(agent) == _counters(twin)
    assert [_row(t) for t in stored] == [_row(t) for t in expected]


def _failing(agent: Any) -> list[Thought]:
    thoughts = _thoughts(agent, 3)
    thoughts[2].goal_key = ""  # refused by the thought_goal_key_not_empty constraint
    return thoughts


@OUTSIDE
def test_a_refused_row_writes_nothing_outside_a_transaction(agent: Any) -> None:
    counters_get(agent=agent)
    before = _counters(agent)
    with pytest.raises(IntegrityError):
        thoughts_store(agent=agent, thoughts=_failing(agent), increments=INCREMENTS)
    assert not Thought.objects.filter(agent=agent).exists()
    assert _counters(agent) == before


@INSIDE
def test_a_refused_row_writes_nothing_and_leaves_the_outer_transaction_usable(
    agent: Any,
) -> None:
    counters_get(agent=agent)
    before = _counters(agent)
    with transaction.atomic():
        with pytest.raises(IntegrityError):
            thoughts_store(agent=agent, thoughts=_failing(agent), increments=INCREMENTS)
        assert not Thought.objects.filter(agent=agent).exists()
        assert _counters(agent) == before


@INSIDE
def test_an_unknown_counter_is_refused_before_anything_is_written(agent: Any) -> None:
    with pytest.raises(ValueError, match="unknown counters"):
        thoughts_store(agent=agent, thoughts=_thoughts(agent, 1), increments={"x": 1})
    assert not Thought.objects.filter(agent=agent).exists()


@INSIDE
def test_a_single_thought_is_saved_with_its_signals_when_a_receiver_listens(
    agent: Any,
) -> None:
    counters_get(agent=agent)
    seen: list[tuple[str, bool]] = []

    def before(sender: Any, instance: Thought, **kwargs: Any) -> None:
        seen.append(("pre_save", instance._state.adding))

    def after(sender: Any, instance: Thought, created: bool, **kwargs: Any) -> None:
        seen.append(("post_save", created))

    pre_save.connect(before, sender=Thought)
    post_save.connect(after, sender=Thought)
    try:
        (thought,) = _thoughts(agent, 1)
        thoughts_store(agent=agent, thoughts=[thought], increments=INCREMENTS)
    finally:
        pre_save.disconnect(before, sender=Thought)
        post_save.disconnect(after, sender=Thought)
    assert seen == [("pre_save", True), ("post_save", True)]
    assert Thought.objects.filter(pk=thought.pk).exists()
    assert _counters(agent)["llm_calls"] == 3
