"""Planning services on a real database: poll + ack, task store, executor.

Runs on SQLite by default and on PostgreSQL with DATABASE_URL; the
concurrency cases that need row locks live in test_planning_concurrency.py.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import Conflict, NotFound
from stream.core.planning import OriginKind, TaskOrigin
from stream.models import Task, TaskEvent, Thought
from stream.services import planning
from stream.services.planning import planning_idle_check, planning_poll_once
from stream.services.planning_task_executor import (
    task_claim,
    task_complete,
    task_fail,
    task_progress,
)
from stream.services.planning_task_store import (
    reset_dropped_key_warnings,
    task_add,
    task_finalize,
    task_update_metadata,
    task_wire_for,
)

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 2, 3, 12, 0, tzinfo=timezone.UTC)
ACK_PREFIXES = ("[Thought-to-task] ack batch", "[CognitiveStream] Acked")
IDLE_LINE = (
    "[Planning] [AUTONOMOUS EXECUTOR] Idle detected: no_tasks (active=0, eligible=0)"
)
DROPPED_LINE = (
    '[projectIncomingMetadata] Dropped metadata key "{}" — not in '
    "PROPAGATED_META_KEYS. If this key is needed, add it to the allowlist."
)


def make_thought(
    agent: Any, goal_key: str | None = "collect:oak_log", **kw: Any
) -> Thought:
    """An actionable thought as the pipeline stores one (eligible by default)."""
    eligible = kw.pop("convert_eligible", True)
    action, _, target = (goal_key or "collect:oak_log").partition(":")
    metadata = kw.pop(
        "metadata",
        {
            "extractedGoal": {
                "action": action,
                "target": target,
                "targetId": None,
                "amount": 4,
                "raw": f"[GOAL: {action} {target} 4]",
            },
            "goalKey": goal_key,
            "grounding": {"pass": True, "reason": "grounded"},
        },
    )
    return Thought.objects.create(
        agent=agent,
        type="reflection",
        content=kw.pop("content", f"thinking about {goal_key}"),
        content_hash=kw.pop("content_hash", "0" * 16),
        convert_eligible=eligible,
        eligibility_reason="eligible" if eligible else "no_goal",
        grounding_passed=True if eligible else None,
        goal_key=goal_key if eligible else None,
        source="agent",
        metadata=metadata,
        created_at=kw.pop("created_at", T0),
        **kw,
    )


@pytest.fixture(autouse=True)
def _fresh_warnings() -> None:
    reset_dropped_key_warnings()


# --- poll and ack (SC-B2, PA-D3) -------------------------------------------------


def test_sc_b2_poll_acks_every_fetched_thought_once_with_the_batch_line_first(
    agent: Any, log_lines: Any
) -> None:
    first = make_thought(agent, "collect:oak_log", created_at=T0)
    dup = make_thought(agent, "collect:oak_log", created_at=T0 + timedelta(seconds=1))
    broken = make_thought(
        agent,
        "mine:stone",
        created_at=T0 + timedelta(seconds=2),
        metadata={"extractedGoal": "not a goal object"},
    )

    result = planning_poll_once(agent=agent, now=T0 + timedelta(seconds=5))

    assert (result.fetched, result.converted, result.skipped, result.errors) == (
        3,
        1,
        1,
        1,
    )
    assert result.acked == 3
    task = Task.objects.get()
    assert result.task_ids == (task.pk,)
    assert task.thought_id == first.pk
    assert [(o.thought_id, o.reason) for o in result.outcomes] == [
        (first.pk, "converted"),
        (dup.pk, "duplicate_goal_key"),
        (broken.pk, "malformed_extracted_goal"),
    ]
    assert set(Thought.objects.values_list("processed", flat=True)) == {True}
    assert Thought.objects.filter(processed_by="planner").count() == 3
    lines = [line for line in log_lines() if line.startswith(ACK_PREFIXES)]
    assert lines == [
        "[Thought-to-task] ack batch size=3 fetched=3 converted=1 skipped=1 errors=1",
        "[CognitiveStream] Acked 3/3 thoughts",
    ]


def test_sc_b2_exception_in_one_conversion_is_counted_as_error_and_still_acked(
    agent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    thought = make_thought(agent)

    def explode(*args: Any, **kwargs: Any) -> Task:
        raise RuntimeError("store down")

    monkeypatch.setattr(planning, "task_add", explode)
    result = planning_poll_once(agent=agent, now=T0)

    assert (result.fetched, result.converted, result.errors, result.acked) == (
        1,
        0,
        1,
        1,
    )
    assert result.outcomes[0].reason == "exception:RuntimeError"
    thought.refresh_from_db()
    assert thought.processed is True
    assert Task.objects.count() == 0


def test_pa_d3_thoughts_without_eligibility_never_become_tasks(
    agent: Any, log_lines: Any
) -> None:
    make_thought(agent, None, convert_eligible=False, metadata={})
    make_thought(agent, None, convert_eligible=None, metadata={})

    result = planning_poll_once(agent=agent, now=T0)

    assert (result.fetched, result.converted, result.acked) == (0, 0, 0)
    assert Task.objects.count() == 0
    assert not [line for line in log_lines() if line.startswith(ACK_PREFIXES)]
    assert Thought.objects.filter(processed=True).count() == 0


def test_sc_b2_a_second_poll_finds_nothing_left(agent: Any) -> None:
    make_thought(agent)
    planning_poll_once(agent=agent, now=T0)
    again = planning_poll_once(agent=agent, now=T0 + timedelta(seconds=5))
    assert (again.fetched, again.converted, again.acked) == (0, 0, 0)
    assert Task.objects.count() == 1


def test_converted_task_carries_origin_provenance_and_rebuilt_metadata(
    agent: Any,
) -> None:
    thought = make_thought(agent)
    planning_poll_once(agent=agent, now=T0)
    task = Task.objects.get()
    assert (task.title, task.action, task.target, task.amount) == (
        "collect oak_log x4",
        "collect",
        "oak_log",
        4,
    )
    assert (task.origin_kind, task.origin_name) == ("cognition", "thought-to-task")
    assert task.goal_key == "collect:oak_log"
    assert task.metadata == {
        "createdAt": T0.isoformat(),
        "updatedAt": T0.isoformat(),
        "retryCount": 0,
        "maxRetries": 3,
        "childTaskIds": [],
        "tags": ["thought-to-task", "gathering"],
        "category": "gathering",
        "solver": "acquisition",
        "taskProvenance": {
            "thoughtId": thought.pk,
            "convertEligible": True,
            "eligibilityReason": "eligible",
            "source": "agent",
            "extractedGoalSource": "llm",
        },
    }
    assert list(task.events.values_list("kind", flat=True)) == ["created"]


# --- goalKey idempotency (the agency contract §3.2) ---------------------------------------------


def _pending(agent: Any, goal_key: str, created: datetime) -> Task:
    return task_add(
        agent=agent,
        title=goal_key,
        action=goal_key.split(":")[0],
        target=goal_key.split(":")[1],
        metadata={"goalKey": goal_key},
        origin=TaskOrigin(OriginKind.API, "test"),
        now=created,
    )


@pytest.mark.parametrize(
    ("age", "progress", "converted"),
    [
        (timedelta(minutes=4, seconds=59), 0.0, False),
        (timedelta(minutes=5), 0.0, True),
        (timedelta(minutes=30), 0.25, False),
    ],
)
def test_goal_key_suppression_until_stuck(
    agent: Any, age: timedelta, progress: float, converted: bool
) -> None:
    existing = _pending(agent, "collect:oak_log", T0)
    if progress:
        task_claim(agent=agent, executor="ex", task_id=existing.pk, now=T0)
        task_progress(
            agent=agent, task_id=existing.pk, executor="ex", progress=progress, now=T0
        )
    make_thought(agent, created_at=T0 + age)

    result = planning_poll_once(agent=agent, now=T0 + age)

    assert result.converted == int(converted)
    expected = "converted" if converted else "duplicate_goal_key"
    assert result.outcomes[0].reason == expected
    assert Task.objects.filter(goal_key="collect:oak_log").count() == 1 + converted


def test_goal_key_of_finished_task_does_not_suppress(agent: Any) -> None:
    done = _pending(agent, "collect:oak_log", T0)
    task_fail(agent=agent, task_id=done.pk, executor="ex", reason="no trees", now=T0)
    make_thought(agent, created_at=T0)
    assert planning_poll_once(agent=agent, now=T0).converted == 1


# --- task store (the agency contract §1) ------------------------------------------------------


def test_seed004_addTask_drops_empty_string_goalKey(agent: Any) -> None:  # noqa: N802
    """addTask drops empty-string goalKey (never reaches task.metadata)."""
    task = task_add(
        agent=agent,
        title="t",
        action="collect",
        target="oak_log",
        metadata={"goalKey": ""},
        origin=TaskOrigin(OriginKind.API, "test"),
        now=T0,
    )
    task.refresh_from_db()
    assert task.goal_key is None
    assert "goalKey" not in task.metadata
    assert task_wire_for(task, now=T0)["metadata"].get("goalKey") is None


def test_goal_key_empty_string_is_refused_by_the_database(agent: Any) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Task.objects.create(
            agent=agent, title="t", action="collect", goal_key="",
            created_at=T0, updated_at=T0,
        )  # fmt: skip


def test_one_task_per_thought_is_a_database_constraint(agent: Any) -> None:
    thought = make_thought(agent)
    Task.objects.create(
        agent=agent, thought=thought, title="a", action="collect",
        created_at=T0, updated_at=T0,
    )  # fmt: skip
    with pytest.raises(IntegrityError), transaction.atomic():
        Task.objects.create(
            agent=agent, thought=thought, title="b", action="collect",
            created_at=T0, updated_at=T0,
        )  # fmt: skip
    assert Task.objects.count() == 1


def test_already_converted_thought_is_skipped_not_duplicated(agent: Any) -> None:
    thought = make_thought(agent)
    Task.objects.create(
        agent=agent, thought=thought, title="a", action="collect",
        goal_key="other:key", created_at=T0, updated_at=T0,
    )  # fmt: skip
    result = planning_poll_once(agent=agent, now=T0)
    assert (result.converted, result.skipped, result.acked) == (0, 1, 1)
    assert result.outcomes[0].reason == "already_converted"
    assert Task.objects.count() == 1


def test_metadata_projection_keeps_allowlist_and_warns_once_per_dropped_key(
    agent: Any, log_lines: Any, settings: Any
) -> None:
    settings.DEBUG = True  # "outside production"; pytest-django turns it off
    incoming = {
        "goalKey": "collect:oak_log",
        "subtaskKey": "s1",
        "taskProvenance": {"by": "test"},
        "retryCount": 99,
        "tags": ["spoofed"],
        "origin": {"kind": "api"},
        "zeta": 1,
    }
    first = task_add(
        agent=agent, title="a", action="collect", metadata=incoming, now=T0
    )
    task_add(agent=agent, title="b", action="collect", metadata=incoming, now=T0)

    assert first.goal_key == "collect:oak_log"
    assert first.metadata["subtaskKey"] == "s1"
    assert first.metadata["taskProvenance"] == {"by": "test"}
    assert first.metadata["retryCount"] == 0
    assert first.metadata["tags"] == []
    assert "zeta" not in first.metadata
    assert "origin" not in first.metadata
    assert log_lines("[projectIncomingMetadata]") == [
        DROPPED_LINE.format("origin"),
        DROPPED_LINE.format("zeta"),
    ]


def test_dropped_key_warning_is_silent_in_production(
    agent: Any, log_lines: Any, settings: Any
) -> None:
    settings.DEBUG = False
    task_add(agent=agent, title="a", action="collect", metadata={"zeta": 1}, now=T0)
    assert log_lines("[projectIncomingMetadata]") == []


def test_origin_is_immutable_through_patches_and_finalize(agent: Any) -> None:
    task = _pending(agent, "collect:oak_log", T0)
    patched = task_update_metadata(
        agent=agent,
        task_id=task.pk,
        patch={"origin": {"kind": "executor"}, "note": "x", "goalKey": "evil:key"},
        now=T0 + timedelta(seconds=1),
    )
    assert (
        task_finalize(task=task, origin=TaskOrigin(OriginKind.EXECUTOR, "x")) is False
    )
    task.refresh_from_db()
    assert (task.origin_kind, task.origin_name) == ("api", "test")
    assert task.goal_key == "collect:oak_log"
    assert patched.metadata["note"] == "x"
    assert "origin" not in patched.metadata
    assert "goalKey" not in patched.metadata
    assert patched.metadata["updatedAt"] == (T0 + timedelta(seconds=1)).isoformat()


def test_finalize_stamps_origin_once_on_an_unfinalized_task(agent: Any) -> None:
    task = task_add(
        agent=agent, title="a", action="collect", allow_unfinalized=True, now=T0
    )
    assert task_finalize(task=task, origin=TaskOrigin(OriginKind.GOAL_SOURCE, "g"))
    assert not task_finalize(task=task, origin=TaskOrigin(OriginKind.API, "late"))
    assert (task.origin_kind, task.origin_name) == ("goal_source", "g")


@pytest.mark.parametrize(
    ("strict", "allow", "warned"),
    [(True, False, True), (True, True, False), (False, False, False)],
)
def test_strict_finalize_warns_for_a_task_stored_without_origin(
    agent: Any, log_lines: Any, settings: Any, strict: bool, allow: bool, warned: bool
) -> None:
    settings.PLANNING_STRICT_FINALIZE = strict
    task = task_add(
        agent=agent, title="a", action="collect", allow_unfinalized=allow, now=T0
    )
    expected = (
        [
            f"[TaskStore] setTask: task {task.pk} stored without origin "
            "(PLANNING_STRICT_FINALIZE=1); finalize it or pass allow_unfinalized"
        ]
        if warned
        else []
    )
    assert log_lines("[TaskStore] setTask") == expected


# --- executor transitions ---------------------------------------------------------


def test_claim_takes_the_oldest_pending_task_then_nothing(agent: Any) -> None:
    old = _pending(agent, "collect:oak_log", T0)
    new = _pending(agent, "mine:stone", T0 + timedelta(seconds=1))

    first = task_claim(agent=agent, executor="ex", now=T0 + timedelta(seconds=2))
    second = task_claim(agent=agent, executor="ex", now=T0 + timedelta(seconds=3))
    third = task_claim(agent=agent, executor="ex", now=T0 + timedelta(seconds=4))

    assert first is not None and second is not None
    assert (first.pk, second.pk, third) == (old.pk, new.pk, None)
    old.refresh_from_db()
    assert (old.status, old.claimed_by) == ("active", "ex")
    assert old.claimed_at == T0 + timedelta(seconds=2)


def test_claiming_an_active_task_is_a_conflict_with_the_current_state(
    agent: Any,
) -> None:
    task = _pending(agent, "collect:oak_log", T0)
    task_claim(agent=agent, executor="ex", task_id=task.pk, now=T0)
    with pytest.raises(Conflict) as caught:
        task_claim(agent=agent, executor="other", task_id=task.pk, now=T0)
    assert caught.value.details["reason"] == "illegal_transition:active->claim"
    assert caught.value.details["current"]["status"] == "active"
    assert caught.value.details["current"]["claimedBy"] == "ex"


def test_progress_complete_and_the_audit_trail(agent: Any) -> None:
    task = _pending(agent, "collect:oak_log", T0)
    task_claim(agent=agent, executor="ex", task_id=task.pk, now=T0)
    task_progress(agent=agent, task_id=task.pk, executor="ex", progress=0.5, now=T0)
    task_progress(
        agent=agent,
        task_id=task.pk,
        executor="ex",
        progress=0.5,
        blocked_reason="no_path",
        now=T0 + timedelta(seconds=1),
    )
    blocked = Task.objects.get(pk=task.pk)
    assert (blocked.blocked_reason, blocked.blocked_at) == (
        "no_path",
        T0 + timedelta(seconds=1),
    )
    done = task_complete(
        agent=agent, task_id=task.pk, executor="ex", now=T0 + timedelta(seconds=2)
    )
    assert (done.status, done.progress, done.blocked_reason, done.blocked_at) == (
        "completed",
        1.0,
        "",
        None,
    )
    assert done.finished_at == T0 + timedelta(seconds=2)
    assert list(
        TaskEvent.objects.filter(task=task).values_list("kind", "status", "progress")
    ) == [
        ("created", "pending", 0.0),
        ("claimed", "active", 0.0),
        ("progress", "active", 0.5),
        ("blocked", "active", 0.5),
        ("completed", "completed", 1.0),
    ]


@pytest.mark.parametrize(
    ("setup", "call", "reason"),
    [
        ("pending", "progress", "illegal_transition:pending->progress"),
        ("pending", "complete", "illegal_transition:pending->complete"),
        ("completed", "fail", "illegal_transition:completed->fail"),
        ("completed", "claim", "illegal_transition:completed->claim"),
        ("active", "regress", "progress_regressed"),
        ("active", "other_executor", "claimed_by_other"),
    ],
)
def test_illegal_transitions_are_conflicts_and_change_nothing(
    agent: Any, setup: str, call: str, reason: str
) -> None:
    task = _pending(agent, "collect:oak_log", T0)
    if setup in ("active", "completed"):
        task_claim(agent=agent, executor="ex", task_id=task.pk, now=T0)
        task_progress(agent=agent, task_id=task.pk, executor="ex", progress=0.5, now=T0)
    if setup == "completed":
        task_complete(agent=agent, task_id=task.pk, executor="ex", now=T0)
    before = Task.objects.filter(pk=task.pk).values().get()
    events = TaskEvent.objects.count()
    calls = {
        "progress": lambda: task_progress(
            agent=agent, task_id=task.pk, executor="ex", progress=0.6
        ),
        "complete": lambda: task_complete(agent=agent, task_id=task.pk, executor="ex"),
        "fail": lambda: task_fail(
            agent=agent, task_id=task.pk, executor="ex", reason="x"
        ),
        "claim": lambda: task_claim(agent=agent, executor="ex", task_id=task.pk),
        "regress": lambda: task_progress(
            agent=agent, task_id=task.pk, executor="ex", progress=0.1
        ),
        "other_executor": lambda: task_complete(
            agent=agent, task_id=task.pk, executor="intruder"
        ),
    }
    with pytest.raises(Conflict) as caught:
        calls[call]()
    assert caught.value.details["reason"] == reason
    assert Task.objects.filter(pk=task.pk).values().get() == before
    assert TaskEvent.objects.count() == events


def test_fail_from_pending_records_the_reason(agent: Any) -> None:
    task = _pending(agent, "collect:oak_log", T0)
    failed = task_fail(agent=agent, task_id=task.pk, executor="ex", reason="no route")
    assert (failed.status, failed.failure_reason) == ("failed", "no route")


def test_another_agents_task_is_not_found(agent: Any, owner: Any) -> None:
    from stream.services.agents import agent_create

    other = agent_create(name="beta", owner=owner).agent
    task = _pending(other, "collect:oak_log", T0)
    with pytest.raises(NotFound):
        task_claim(agent=agent, executor="ex", task_id=task.pk)
    assert Task.objects.get(pk=task.pk).status == "pending"


# --- idle signal (KA-A3) ------------------------------------------------------------


def test_ka_a3_idle_line_when_no_task_is_active_or_pending(
    agent: Any, log_lines: Any
) -> None:
    planning_poll_once(agent=agent, now=T0)
    assert log_lines("[Planning]") == [IDLE_LINE]


def test_ka_a3_no_idle_line_while_a_task_is_pending(agent: Any, log_lines: Any) -> None:
    _pending(agent, "collect:oak_log", T0)
    assert planning_idle_check(agent=agent) is False
    assert IDLE_LINE not in log_lines()
