"""Hostile values in every field of a score and every list parameter: never
a server error, and a refused request stores nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from reviews.models import Score, ScoreRevision
from tests.hostile import HOSTILE_NUMBERS, HOSTILE_STRINGS
from tests.reviews.reviews_support import configs_make, run_with_cases

pytestmark = pytest.mark.django_db

VALID = {
    "config": "quality",
    "kind": "scenario_result",
    "ref": "run-1/c00",
    "value": 3,
    "comment": "fine",
}
HOSTILE = [*HOSTILE_STRINGS, *HOSTILE_NUMBERS]


@pytest.fixture
def client(owner: Any) -> APIClient:
    configs_make()
    run_with_cases("run-1", {"c00": True})
    made = APIClient()
    made.force_login(owner)
    return made


def test_hostile_score_fields_get_no_server_error_and_refusals_store_nothing(
    client: APIClient,
) -> None:
    answers: dict[int, int] = {}
    for field in VALID:
        for label, value in HOSTILE:
            raw = json.dumps({**VALID, field: value})  # \ud800 stays escaped
            answer = client.post(
                "/api/reviews/scores", raw, content_type="application/json"
            )
            answers[answer.status_code] = answers.get(answer.status_code, 0) + 1
            assert answer.status_code < 500, (field, label, answer.content[:200])
            if answer.status_code >= 400:
                assert not Score.objects.exists(), (field, label)
            Score.objects.all().delete()
            ScoreRevision.objects.all().delete()
    assert answers.get(400, 0) > 0


def test_hostile_list_parameters_get_no_server_error(client: APIClient) -> None:
    for name in ("kind", "ref", "run_id", "config", "limit", "cursor"):
        for label, value in HOSTILE_STRINGS:
            if len(value) > 10_000 or label == "lone-surrogate":
                continue  # no URL can carry these; a server in front refuses them
            answer = client.get("/api/reviews/scores", {name: value})
            assert answer.status_code in (200, 400), (name, label, answer.status_code)
