"""The reviews' demo data: configs, a queue over the demo run, a few scores;
loading twice adds nothing."""

from __future__ import annotations

from typing import Any

import pytest

from reviews.demo import QUEUE_NAME, load_demo
from reviews.models import ReviewItem, ReviewQueue, Score, ScoreConfig
from tests.reviews.reviews_support import cases_of, run_with_cases

pytestmark = pytest.mark.django_db


def test_without_the_demo_run_nothing_is_loaded(staff: Any) -> None:
    assert "no demo run" in load_demo(owner=staff)
    assert not ReviewQueue.objects.exists()


def test_the_demo_queue_reviews_the_demo_run_once(staff: Any) -> None:
    run = run_with_cases("demo-run", cases_of(8))
    run.config = {"demoKey": "smoke-balanced"}
    run.save()
    summary = load_demo(owner=staff)
    assert summary == (
        f"reviews: queue '{QUEUE_NAME}' with 8 items of run demo-run, 3 scored"
    )
    queue = ReviewQueue.objects.get()
    assert ReviewItem.objects.filter(queue=queue).count() == 8
    # two configs, three items, two reviewers who do not always agree
    assert Score.objects.count() == 12
    assert queue.members.count() == 2
    both = Score.objects.filter(config__name="verdict").values_list(
        "ref", "value_label"
    )
    assert len({ref for ref, _ in both}) == 3
    assert len(set(both)) == 4  # they differ on one item
    assert set(ScoreConfig.objects.values_list("name", flat=True)) == {
        "quality",
        "verdict",
    }
    assert load_demo(owner=staff) == "reviews: the demo queue exists"
    assert Score.objects.count() == 12
