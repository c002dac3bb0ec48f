"""The overview is built from the sections the apps register
(``evalsite.overview``); the project itself names no app."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.http import HttpRequest
from django.urls import reverse

from evalsite import overview
from evalsite.overview import Link, Section

pytestmark = pytest.mark.django_db


def extra_context(request: HttpRequest) -> dict[str, Any]:
    return {"extra_value": "from-the-extra-section"}


def clashing_context(request: HttpRequest) -> dict[str, Any]:
    return {"stream": "hidden"}


@pytest.fixture
def restore_sections() -> Iterator[None]:
    before = dict(overview._sections)
    yield
    overview._sections.clear()
    overview._sections.update(before)


def test_every_app_registers_its_section_in_page_order() -> None:
    assert [section.key for section in overview.sections()] == [
        "evals",
        "stream",
        "prkeepalive",
        "gridworld",
    ]


def test_quick_links_come_from_the_sections_in_order(owner_client: Any) -> None:
    html = owner_client.get("/").content.decode()
    links = html.split('<p class="quick-links">', 1)[1].split("</p>", 1)[0]
    assert links == (
        f'<a class="button" href="{reverse("evals:run-new")}">New run</a> '
        f'<a class="button secondary" href="{reverse("evals:compare")}">Compare</a> '
        f'<a class="button secondary" href="{reverse("evals:trends")}">Trends</a> '
        f'<a class="button secondary" href="{reverse("gridworld:index")}">'
        "Gridworld batches</a>"
    )


def test_a_registered_section_shows_its_tile_and_links(
    owner_client: Any, restore_sections: None, settings: Any, tmp_path: Any
) -> None:
    (tmp_path / "extra_tile.html").write_text(
        '  <a class="tile" href="#">{{ extra_value }}</a>\n'
    )
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], tmp_path]}
    ]
    overview.register(
        Section(
            key="extra",
            order=25,
            context=extra_context,
            tiles="extra_tile.html",
            links=(Link("Extra", "health"),),
        )
    )
    html = owner_client.get("/").content.decode()
    tile = html.index("from-the-extra-section")
    assert html.index("<h2>Stream health</h2>") < tile
    assert tile < html.index("<h2>PR keepalive</h2>")
    assert f'<a class="button secondary" href="{reverse("health")}">Extra</a>' in html


def test_two_sections_may_not_provide_the_same_name(
    owner_client: Any, restore_sections: None
) -> None:
    overview.register(Section(key="clash", order=50, context=clashing_context))
    with pytest.raises(ValueError, match="'clash' provides 'stream'"):
        owner_client.get("/")
