"""The reviews' admin pages open for staff; scores are read-only there."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin

from reviews.models import Score
from reviews.services.scores import Giver, score_give, subject_find, value_read
from tests.reviews.reviews_support import configs_make, run_with_cases

pytestmark = pytest.mark.django_db

PAGES = (
    "scoreconfig",
    "scoreconfigattachment",
    "reviewqueue",
    "reviewitem",
    "reviewassignment",
    "score",
)


def test_every_reviews_admin_page_opens(staff_client: Any, staff: Any) -> None:
    configs = configs_make()
    run_with_cases("run-1", {"c00": True})
    score, _ = score_give(
        config=configs["quality"],
        subject=subject_find("scenario_result", "run-1/c00"),
        kind="scenario_result",
        ref="run-1/c00",
        value=value_read(configs["quality"], 3),
        comment="",
        giver=Giver(user=staff),
        source="api",
    )
    for page in PAGES:
        answer = staff_client.get(f"/admin/reviews/{page}/")
        assert answer.status_code == 200, page
    assert (
        staff_client.get(f"/admin/reviews/score/{score.pk}/change/").status_code == 200
    )
    assert staff_client.get("/admin/reviews/score/add/").status_code == 403


def test_scores_cannot_be_changed_in_the_admin(rf: Any, staff: Any) -> None:
    model_admin = admin.site._registry[Score]
    request = rf.get("/")
    request.user = staff
    assert model_admin.has_change_permission(request) is False
    assert model_admin.has_add_permission(request) is False
