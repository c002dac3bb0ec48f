"""Agreement per config version from stored scores (reviews.services.agreement):
the reliability matrix built from the scores, checked against the
``krippendorff`` package and scikit-learn; who sees which scores; one queue."""

from __future__ import annotations

from typing import Any

import krippendorff
import numpy as np
import pytest
from django.contrib.auth import get_user_model
from sklearn.metrics import cohen_kappa_score

from accounts.models import ApiKey
from reviews.core.agreement import NOT_TWO
from reviews.models import ReviewItem, ReviewQueue, Score, ScoreConfig, Subject
from reviews.services.agreement import (
    agreement_scores,
    cell_value,
    config_agreements,
    giver_key,
)

pytestmark = pytest.mark.django_db
TOLERANCE = 1e-9


def people(n: int) -> list[Any]:
    return [get_user_model().objects.create(username=f"rev{i}") for i in range(n)]


def give(config: ScoreConfig, ref: str, user: Any, **value: Any) -> Score:
    return Score.objects.create(
        config=config,
        kind=Subject.THOUGHT,
        ref=ref,
        source=Score.Source.REVIEW,
        author=user,
        **value,
    )


def test_numeric_scores_give_alpha_of_both_levels_as_the_reference(staff: Any) -> None:
    config = ScoreConfig.objects.create(
        name="quality", kind="numeric", min_value=1, max_value=5
    )
    rng = np.random.default_rng(3)
    reviewers = people(3)
    matrix = np.full((3, 12), np.nan)
    for item in range(12):
        truth = int(rng.integers(1, 6))
        for r, user in enumerate(reviewers):
            if rng.random() < 0.25:
                continue
            value = float(min(5, max(1, truth + int(rng.integers(-1, 2)))))
            matrix[r, item] = value
            give(config, str(item + 1), user, value_number=value)

    [found] = config_agreements(agreement_scores(user=staff))

    assert found.config == config
    assert found.givers == 3
    assert found.scores == int((~np.isnan(matrix)).sum())
    for level, figure in (
        ("nominal", found.alpha_nominal),
        ("interval", found.alpha_interval),
    ):
        expected = krippendorff.alpha(
            reliability_data=matrix, level_of_measurement=level
        )
        assert figure is not None and figure.value is not None
        assert abs(figure.value - expected) < TOLERANCE
    assert found.kappa.value is None and found.kappa.reason == NOT_TWO


def test_two_reviewers_of_labels_give_cohens_kappa_as_the_reference(staff: Any) -> None:
    config = ScoreConfig.objects.create(
        name="tone", kind="categorical", labels=["calm", "curt", "rude"]
    )
    ann, bob = people(2)
    first = ["calm", "calm", "curt", "rude", "calm", "curt", "rude", "calm"]
    second = ["calm", "curt", "curt", "rude", "calm", "calm", "rude", "calm"]
    for i, (a, b) in enumerate(zip(first, second, strict=True)):
        give(config, str(i + 1), ann, value_label=a)
        give(config, str(i + 1), bob, value_label=b)

    [found] = config_agreements(agreement_scores(user=staff))

    assert found.kappa.value == pytest.approx(
        cohen_kappa_score(first, second), abs=TOLERANCE
    )
    assert (found.subjects, found.givers, found.scores) == (8, 2, 16)
    assert found.alpha_interval is None and found.kappa_quadratic is None


def test_each_config_version_is_apart_and_api_keys_are_givers(
    staff: Any, owner: Any
) -> None:
    v1 = ScoreConfig.objects.create(name="ok", kind="boolean", is_current=False)
    v2 = ScoreConfig.objects.create(name="ok", kind="boolean", version=2)
    key = ApiKey.objects.create(name="judge", owner=owner, prefix="p1", key_hash="h")
    [ann] = people(1)
    give(v1, "1", ann, value_number=1)
    give(v2, "1", ann, value_number=1)
    Score.objects.create(
        config=v2,
        kind=Subject.THOUGHT,
        ref="1",
        source=Score.Source.API,
        api_key=key,
        value_number=0,
    )

    found = config_agreements(agreement_scores(user=staff))

    assert [(f.config.version, f.givers, f.scores) for f in found] == [
        (2, 2, 2),
        (1, 1, 1),
    ]


def test_only_one_queues_scores_when_a_queue_is_named(staff: Any) -> None:
    config = ScoreConfig.objects.create(name="ok", kind="boolean")
    queue = ReviewQueue.objects.create(name="q")
    item = ReviewItem.objects.create(queue=queue, kind=Subject.THOUGHT, ref="1")
    ann, bob = people(2)
    give(config, "1", ann, value_number=1, item=item)
    give(config, "2", bob, value_number=1)

    [found] = config_agreements(agreement_scores(user=staff, queue=queue))
    assert (found.subjects, found.scores) == (1, 1)


def test_a_person_sees_no_scores_of_another_owners_agent(
    stranger: Any, agent: Any
) -> None:
    config = ScoreConfig.objects.create(name="ok", kind="boolean")
    [ann] = people(1)
    give(config, "1", ann, value_number=1, agent_id=agent.pk)
    assert config_agreements(agreement_scores(user=stranger)) == []


def test_cell_values_and_giver_keys() -> None:
    tone = ScoreConfig(name="tone", kind="categorical", labels=["calm", "rude"])
    assert cell_value(tone, None, "rude") == 1.0
    assert cell_value(tone, None, "gone") is None
    ok = ScoreConfig(name="ok", kind="boolean")
    assert cell_value(ok, 1.0, "true") == 1.0
    assert giver_key(4, None) == "user:4"
    assert giver_key(None, 9) == "key:9"
