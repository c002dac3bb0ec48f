"""What the review page tests share: three score configs (a categorical,
a numeric 1..5 and a yes/no one) and a round robin queue over thoughts whose
reviewers are the owner and the member (never the stranger)."""

from __future__ import annotations

from typing import Any

from reviews.models import ReviewQueue
from reviews.services.configs import config_create
from reviews.services.queues import items_add, queue_create
from tests.builders import T0, thought_actionable


def configs_make() -> list[Any]:
    return [
        config_create(
            name="helpful",
            kind="categorical",
            labels=["good", "meh", "bad"],
            rubric="good: it would help the agent",
        ),
        config_create(name="quality", kind="numeric", min_value=1, max_value=5),
        config_create(name="grounded", kind="boolean"),
    ]


def thoughts_make(agent: Any, count: int) -> list[Any]:
    from datetime import timedelta

    return [
        thought_actionable(
            agent,
            content=f"thought number {index}: fetch oak logs",
            created_at=T0 + timedelta(seconds=index),
        )
        for index in range(count)
    ]


def queue_make(
    *,
    members: list[Any],
    thoughts: list[Any],
    configs: list[Any] | None = None,
    name: str = "Oak thoughts",
    assignment: str = ReviewQueue.Assignment.CLAIM,
) -> ReviewQueue:
    queue = queue_create(
        name=name,
        configs=configs if configs is not None else configs_make(),
        assignment=assignment,
        members=members,
    )
    if thoughts:
        items_add(queue, [("thought", str(t.pk)) for t in thoughts])
    return queue
