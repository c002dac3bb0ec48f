"""The compare page offers staff a review queue of its flips; the link
opens the new-queue page with the compare selection chosen."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from evals.models import Run
from tests.evals.test_dashboard_compare import compare_url, good, regressed

pytestmark = pytest.mark.django_db

__all__ = ["good", "regressed"]


def test_staff_get_a_link_that_queues_the_flips(good: Run, regressed: Run) -> None:
    staff = get_user_model().objects.create_user("lead", is_staff=True)
    client = Client()
    client.force_login(staff)

    page = client.get(compare_url(good, regressed)).content.decode()

    link = page.split('id="review-flips" href="')[1].split('"')[0]
    assert link == (
        f"/reviews/queues/new?from_compare={good.run_id}...{regressed.run_id}"
        "&amp;cases=flips"
    )
    assert "Review the 2 flips in a new queue" in page
    form = client.get(link.replace("&amp;", "&"))
    assert form.status_code == 200
    assert f"From the compare selection {good.run_id}...{regressed.run_id}" in (
        form.content.decode()
    )


def test_others_get_no_link(owner_client: Any, good: Run, regressed: Run) -> None:
    page = owner_client.get(compare_url(good, regressed)).content.decode()

    assert 'id="flipped-cases"' in page
    assert "review-flips" not in page
