"""Pages of the shadow recall records: the list with its filters, one record."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from evals.examples import example_shadow_record
from evals.services.shadow_records import shadow_records_ingest

pytestmark = pytest.mark.django_db


@pytest.fixture
def records(settings: Any) -> None:
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    shadow_records_ingest(
        documents=[
            example_shadow_record("trace-a"),
            example_shadow_record(
                "trace-b",
                sessionKey="agent:other",
                recordedAt="2026-03-07T09:00:00.000Z",
            ),
        ]
    )


def test_pages_need_a_login(client: Client, records: None) -> None:
    for path in ("/shadow/", "/shadow/trace-a/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")


def test_the_list_shows_every_record_newest_first_and_filters(
    owner_client: Client, records: None
) -> None:
    html = owner_client.get("/shadow/").content.decode()
    assert html.index("trace-b") < html.index("trace-a")
    assert 'href="/shadow/trace-a/"' in html
    assert 'aria-current="page">Shadow records</a>' in html

    by_day = owner_client.get("/shadow/?day=2026-03-06").content.decode()
    assert "trace-a" in by_day and "trace-b" not in by_day
    by_session = owner_client.get("/shadow/?session=agent:other").content.decode()
    assert "trace-b" in by_session and "trace-a" not in by_session


def test_a_day_that_is_not_a_date_is_a_400_that_says_so(
    owner_client: Client, records: None
) -> None:
    response = owner_client.get("/shadow/?day=March")
    assert response.status_code == 400
    assert "is not a day: write it YYYY-MM-DD." in response.content.decode()


def test_a_record_page_shows_the_record_as_posted(
    owner_client: Client, records: None
) -> None:
    response = owner_client.get("/shadow/trace-a/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Shadow record <code>trace-a</code></h1>" in html
    assert "&quot;promptHash&quot;: &quot;abc123&quot;" in html
    assert 'href="/shadow/?session=agent%3Amain"' in html
    assert owner_client.get("/shadow/nope/").status_code == 404
