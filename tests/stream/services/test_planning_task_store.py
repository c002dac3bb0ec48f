"""stream.services.planning_task_store on a real database: adding,
patching and finalizing tasks.

Runs on SQLite by default and on PostgreSQL with DATABASE_URL; the
concurrency cases that need row locks live in test_planning_concurrency.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from stream.core.planning import OriginKind, TaskOrigin
from stream.models import Task
from stream.services.planning import planning_poll_once
from stream.services.planning_task_store import (
    reset_dropped_key_warnings,
    task_add,
    task_finalize,
    task_update_metadata,
    task_wire_for,
)
from tests.builders import T0, task_pending, thought_actionable

pytestmark = pytest.mark.django_db

DROPPED_LINE = (
    '[projectIncomingMetadata] Dropped metadata key "{}" — not in '
    "PROPAGATED_META_KEYS. If this key is needed, add it to the allowlist."
)


@pytest.fixture(autouse=True)
def _fresh_warnings() -> None:
    reset_dropped_key_warnings()


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
    thought = thought_actionable(agent)
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
    thought = thought_actionable(agent)
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
    task = task_pending(agent, "collect:oak_log", T0)
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
