"""The agreement pages (reviews:agreement, reviews:agreement-detail): the
figures per score config, the confusion tables against the automatic
checks with their disagreements linked to the scenarios, one queue's scores,
who sees what, and bad addresses answered with a 404 page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from evals.models import Run
from reviews.models import (
    QueueMember,
    ReviewItem,
    ReviewQueue,
    Score,
    ScoreConfig,
    Subject,
)
from tests.reviews.reviews_support import scenario_score
from tests.reviews.subjects_support import scenario_run, suites_private

pytestmark = pytest.mark.django_db
LIST = "/reviews/agreement/"


@pytest.fixture
def run(settings: Any, tmp_path: Path) -> Run:
    return scenario_run(suites_private(settings, tmp_path))


@pytest.fixture
def scored(run: Run) -> dict[str, Any]:
    """Two reviewers score every smoke scenario yes/no; ann follows the
    verdicts (two cases made to fail), ben says yes to all."""
    ann, ben = (get_user_model().objects.create(username=n) for n in ("ann", "ben"))
    config = ScoreConfig.objects.create(
        name="helpful", kind="boolean", description="Did it help?"
    )
    cases = sorted(run.case_results.values_list("case_id", flat=True))
    run.case_results.filter(case_id__in=cases[:2]).update(passed=False)
    first, second = [], []
    for i, case_id in enumerate(cases):
        verdict = 0.0 if i < 2 else 1.0
        scenario_score(config, run.run_id, case_id, ann, value_number=verdict)
        scenario_score(config, run.run_id, case_id, ben, value_number=1.0)
        first.append(verdict)
        second.append(1.0)
    return {"config": config, "cases": cases, "kappa": cohen_kappa_score(first, second)}


def text_of(response: Any) -> str:
    return response.content.decode()


def assert_no_jargon(page: str) -> None:
    assert "Traceback" not in page
    assert "/work/" not in page and "/tmp/" not in page
    assert not re.search(r"[{\[]\s*\"\w+\"\s*:", page), "raw JSON on the page"


def test_list_shows_each_config_with_its_figures(
    staff_client: Client, scored: dict[str, Any]
) -> None:
    response = staff_client.get(LIST)
    page = text_of(response)

    assert response.status_code == 200
    assert reverse("reviews:agreement") == LIST
    row = re.search(
        r'<tr data-config="helpful" data-version="1">(.*?)</tr>', page, re.S
    )
    assert row is not None
    cells = row.group(1)
    n = len(scored["cases"])
    assert f'<td class="subjects">{n}</td>' in cells
    assert '<td class="givers">2</td>' in cells
    assert f'<td class="scores">{2 * n}</td>' in cells
    assert f"{scored['kappa']:.3f}" in cells
    assert "n/a" in cells  # no alpha over numbers for a yes/no score
    assert_no_jargon(page)


def test_detail_shows_the_confusion_table_and_links_disagreements(
    staff_client: Client, scored: dict[str, Any], run: Run
) -> None:
    response = staff_client.get("/reviews/agreement/helpful/v1/")
    page = text_of(response)

    assert response.status_code == 200
    case = re.search(
        r'<section class="card" id="check-case">(.*?)</section>', page, re.S
    )
    assert case is not None
    section = case.group(1)
    # rows yes/no against columns passed/failed; ben's yes to the 2 failed disagree
    n = len(scored["cases"])
    assert re.search(
        rf"<th scope=\"row\">yes</th><td>{2 * (n - 2)}</td><td class=\"disagree\"",
        section,
    )
    assert re.search(r'<th scope="row">no</th><td[^>]*>0</td><td>2</td>', section)
    for case_id in scored["cases"][:2]:
        url = f"/evals/runs/{run.run_id}/scenarios/{case_id}/"
        assert f'<a href="{url}">{case_id}</a>' in section
    assert (
        "ben said <strong>yes</strong>, the check said <strong>failed</strong>"
        in section
    )
    assert_no_jargon(page)


def test_one_queue_narrows_the_figures(
    member_client: Client, member: Any, scored: dict[str, Any], run: Run
) -> None:
    queue = ReviewQueue.objects.create(name="Smoke review")
    QueueMember.objects.create(queue=queue, user=member)
    item = ReviewItem.objects.create(
        queue=queue, kind=Subject.SCENARIO_RESULT, ref=f"{run.run_id}/x"
    )
    Score.objects.filter(case_id=scored["cases"][0]).update(item=item)

    page = text_of(member_client.get(f"{LIST}?queue={queue.pk}"))
    assert '<td class="subjects">1</td>' in page
    assert '<td class="scores">2</td>' in page
    assert f'?queue={queue.pk}"' in page  # the detail link keeps the queue


@pytest.mark.parametrize("queue", ["abc", "-1", "99999999999999999999", "0"])
def test_a_queue_that_is_not_there_is_a_404_page(
    staff_client: Client, queue: str
) -> None:
    assert staff_client.get(f"{LIST}?queue={queue}").status_code == 404


def test_a_queue_of_which_one_is_not_a_member_is_a_404_page(
    stranger_client: Client,
) -> None:
    queue = ReviewQueue.objects.create(name="private")
    assert stranger_client.get(f"{LIST}?queue={queue.pk}").status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/reviews/agreement/nope/v1/",
        "/reviews/agreement/helpful/v2/",
        "/reviews/agreement/helpful/v99999999999999999999/",
    ],
)
def test_an_unknown_config_version_is_a_404_page(
    staff_client: Client, scored: dict[str, Any], path: str
) -> None:
    assert staff_client.get(path).status_code == 404


def test_signed_out_people_are_sent_to_log_in(client: Client) -> None:
    for path in (LIST, "/reviews/agreement/helpful/v1/"):
        response = client.get(path)
        assert response.status_code == 302
        assert "login" in response["Location"]


def test_scores_of_another_owners_agent_are_not_counted(
    stranger_client: Client, agent: Any
) -> None:
    config = ScoreConfig.objects.create(name="ok", kind="boolean")
    ann = get_user_model().objects.create(username="ann")
    Score.objects.create(
        config=config,
        kind=Subject.THOUGHT,
        ref="1",
        agent_id=agent.pk,
        source=Score.Source.REVIEW,
        author=ann,
        value_number=1,
    )
    page = text_of(stranger_client.get(LIST))
    assert 'data-config="ok"' not in page
    assert 'id="no-scores"' in page


def test_a_config_without_scenario_scores_says_so(staff_client: Client) -> None:
    ScoreConfig.objects.create(name="ok", kind="boolean")
    page = text_of(staff_client.get("/reviews/agreement/ok/v1/"))
    assert 'id="no-calibration"' in page
    assert "No item was scored by two reviewers" in page
