"""Demo data of the reviews: two score configs and a review queue over the
demo's balanced smoke run, every item for two reviewers (the demo user and
a second reviewer who cannot sign in), their first three items already
scored by both, not always alike, so the agreement page has figures; the
rest is left to review.

Registered in ``DEMO_DATA_LOADERS`` after the eval runs' loader (it reviews
their scenarios); loading twice adds nothing.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from evals.selectors.runs import harness_run_list
from reviews.models import ReviewQueue, ScoreConfig
from reviews.services.assignments import assignment_score, next_assignment
from reviews.services.configs import config_attach, config_create
from reviews.services.queues import queue_create, queue_fill_rule

QUEUE_NAME = "Demo: smoke scenarios"
DEMO_RUN_KEY = "smoke-balanced"
# The first items of the queue, scored by the demo user: (quality, verdict).
DEMO_SCORES = ((4, "good"), (2, "bad"), (5, "good"))
# The same items as the second reviewer scored them.
SECOND_REVIEWER = "demo-reviewer"
SECOND_SCORES = ((4, "good"), (3, "bad"), (4, "unclear"))


def _configs(owner: Any) -> list[ScoreConfig]:
    made = []
    for name, fields in (
        (
            "quality",
            {
                "kind": "numeric",
                "min_value": 1,
                "max_value": 5,
                "description": "How good the agent's reply is, 1 (useless) to 5.",
                "rubric": "5: right goal, grounded, nothing extra. "
                "3: usable with a fix. 1: wrong or unsafe.",
            },
        ),
        (
            "verdict",
            {
                "kind": "categorical",
                "labels": ["good", "bad", "unclear"],
                "description": "Would you let the agent act on this?",
            },
        ),
    ):
        current = ScoreConfig.objects.filter(name=name, is_current=True).first()
        made.append(current or config_create(name=name, user=owner, **fields))
    return made


def load_demo(*, owner: Any) -> str:
    """Load the demo configs and queue once; returns a one-line summary."""
    if ReviewQueue.objects.filter(name=QUEUE_NAME).exists():
        return "reviews: the demo queue exists"
    run = harness_run_list().filter(config__demoKey=DEMO_RUN_KEY).first()
    if run is None:
        return "reviews: no demo run to review (load the eval runs first)"
    with transaction.atomic():
        second, made = get_user_model().objects.get_or_create(username=SECOND_REVIEWER)
        if made:
            second.set_unusable_password()
            second.save(update_fields=["password"])
        configs = _configs(owner)
        for config in configs:
            config_attach(name=config.name, benchmark_id=run.benchmark.benchmark_id)
        queue = queue_create(
            name=QUEUE_NAME,
            description="The balanced smoke run's scenarios, to score.",
            configs=configs,
            overlap_percent=100,
            members=[owner, second],
            user=owner,
        )
        filled = queue_fill_rule(
            queue, rule="sample", run_id=run.run_id, percent=100, user=owner
        )
    scored = _score(queue, owner, DEMO_SCORES)
    _score(queue, second, SECOND_SCORES)
    return (
        f"reviews: queue '{QUEUE_NAME}' with {filled.added} items of run "
        f"{run.run_id}, {scored} scored"
    )


def _score(queue: ReviewQueue, reviewer: Any, scores: Any) -> int:
    """``reviewer`` scores their next items with ``scores``; how many."""
    scored = 0
    for quality, verdict in scores:
        assignment = next_assignment(queue, reviewer)
        if assignment is None:
            break
        assignment_score(assignment, {"quality": quality, "verdict": verdict})
        scored += 1
    return scored
