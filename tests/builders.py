"""Builders of the records many tests need, in one place.

Plain functions with keyword arguments and defaults; each makes one kind of
record the way the code under test finds it (through the service that makes it
where there is one) and returns it. A test states only what matters to it and
lets the defaults fill the rest. The pytest fixtures of ``tests/conftest.py``
(``owner``, ``agent``, ``agent_client`` ...) are built from the same services.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

# The instant the planning tests build their thoughts and tasks at.
T0 = datetime(2026, 2, 3, 12, 0, tzinfo=timezone.UTC)


def user_make(username: str = "owner", **fields: Any) -> Any:
    """A user of the site (no password unless ``password`` is given)."""
    return get_user_model().objects.create_user(username=username, **fields)


def agent_make(
    *,
    owner: Any,
    name: str = "alpha",
    scopes: Any = None,
    is_active: bool = True,
) -> Any:
    """An agent and its key, as ``stream.services.agents.agent_create`` makes
    them: returns the ``CreatedAgent`` (``.agent``, ``.api_key``). Without
    ``scopes`` the key gets the service's default scopes."""
    from stream.services.agents import agent_create

    if scopes is None:
        return agent_create(name=name, owner=owner, is_active=is_active)
    return agent_create(name=name, owner=owner, scopes=scopes, is_active=is_active)


def key_client(key: str) -> APIClient:
    """An API client that sends ``key`` as its Bearer token."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def thought_actionable(
    agent: Any, goal_key: str | None = "collect:oak_log", **kw: Any
) -> Any:
    """An actionable thought as the pipeline stores one (eligible by default;
    ``convert_eligible=False`` for one that is not)."""
    from stream.models import Thought

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


def thoughts_loaded(agent: Any, count: int, *, forget: bool = True) -> None:
    """``count`` plain thoughts written as a bulk load would (not through a
    publish); with ``forget`` the agent's held queue count is then marked
    unknown, as a bulk load must (docs/stream.md), so its next publish
    counts the queue again."""
    from stream.models import Thought
    from stream.services.counters import queue_held_forget

    now = timezone.now()
    Thought.objects.bulk_create(
        Thought(
            agent=agent,
            type="reflection",
            content=f"Stored {n}.",
            content_hash=f"{n:016x}",
            eligibility_reason="no_goal",
            source="agent",
            metadata={},
            created_at=now,
        )
        for n in range(count)
    )
    if forget:
        queue_held_forget(agents=[agent])


def task_pending(agent: Any, goal_key: str, created: datetime = T0) -> Any:
    """A pending task added through the API's path (``task_add``), with its
    goal key as title, action and target."""
    from stream.core.planning import OriginKind, TaskOrigin
    from stream.services.planning_task_store import task_add

    return task_add(
        agent=agent,
        title=goal_key,
        action=goal_key.split(":")[0],
        target=goal_key.split(":")[1],
        metadata={"goalKey": goal_key},
        origin=TaskOrigin(OriginKind.API, "test"),
        now=created,
    )


def benchmark_make(
    benchmark_id: str = "toy-map", *, kind: str = "toy", title: str = "t", **fields: Any
) -> Any:
    """A benchmark row (no pack file behind it)."""
    from evals.models import Benchmark

    return Benchmark.objects.create(
        benchmark_id=benchmark_id, kind=kind, title=title, **fields
    )


def batch_finished(config: Any, *, user: Any = None) -> Any:
    """A gridworld batch of ``config``, created unscheduled and played to the
    end in this process: its finished ``Run``."""
    from evals.services.runs.lifecycle import run_execute
    from gridworld.services.batches import batch_create

    return run_execute(run=batch_create(config=config, user=user, schedule=False).run)


# The issue body of a PR the keepalive may work on (scope, tasks, acceptance).
ISSUE_BODY = (
    "## Scope\nFix the widget parser.\n## Tasks\n- [ ] add a failing test\n"
    "- [ ] fix it\n## Acceptance Criteria\n- the parser test passes"
)


def pr_waiting(
    github: Any,
    *,
    gate: str | None = "success",
    body: str = ISSUE_BODY,
    labels: tuple[str, ...] = ("agents:keepalive",),
) -> tuple[int, int]:
    """PR 41 on the fake GitHub server, labelled for keepalive, its Gate run
    concluded ``gate`` (none when ``None``) and a person's ``@codex please
    continue`` comment: ``(pull number, comment id)``."""
    pull = github.state.add_pull(41, labels=labels, body=body)
    if gate is not None:
        github.state.add_run("Gate", pull["head"]["sha"], conclusion=gate, pulls=(41,))
    cid = github.state.add_comment(41, "@codex please continue")
    return 41, cid


def delivery_make(
    guid: str = "g-1",
    *,
    event: str = "issue_comment",
    repository: Any = None,
    payload: Any = None,
    **fields: Any,
) -> Any:
    """A stored webhook delivery (an empty payload unless given)."""
    from prkeepalive.models import Delivery

    return Delivery.objects.create(
        guid=guid,
        event=event,
        repository=repository,
        payload={} if payload is None else payload,
        **fields,
    )
