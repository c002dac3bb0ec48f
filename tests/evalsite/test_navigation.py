"""The main navigation marks the section a page is in, not only the
section's own page."""

from __future__ import annotations

from typing import Any

import pytest

from evalsite.context_processors import nav_current

URLS = ["/stream/", "/evals/", "/evals/compare", "/reviews/", "/agents/"]


@pytest.mark.parametrize(
    ("path", "section"),
    [
        ("/reviews/", "/reviews/"),
        ("/reviews/queues/3/review/", "/reviews/"),
        ("/evals/runs/r1/", "/evals/"),
        ("/evals/compare", "/evals/compare"),
        ("/evals/compare/case", "/evals/"),
        ("/agents/scout/keys/4/", "/agents/"),
        ("/", ""),
        ("/audit/", ""),
    ],
)
def test_a_page_is_in_the_section_of_the_longest_folder_above_it(
    path: str, section: str
) -> None:
    assert nav_current(path, URLS) == section


@pytest.mark.django_db
def test_an_inner_page_marks_its_section_and_its_own_page_is_the_page(
    staff_client: Any,
) -> None:
    inner = staff_client.get("/reviews/configs/").content.decode()
    own = staff_client.get("/reviews/").content.decode()

    assert '<a href="/reviews/" aria-current="true">Reviews</a>' in inner
    assert '<a href="/reviews/" aria-current="page">Reviews</a>' in own
    assert inner.count('aria-current="true"') == 1
