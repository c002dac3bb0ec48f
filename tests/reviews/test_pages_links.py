"""The review pages link to what they talk about: each item of a queue to
its subject's own page, so a reviewer can open the whole of it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from reviews.services.queues import items_add
from tests.reviews import reviews_support
from tests.reviews.review_pages_support import configs_make, queue_make, thoughts_make

pytestmark = pytest.mark.django_db


def _items_table(text: str) -> str:
    return text.split('id="items"')[1].split("</table>")[0]


def test_a_thought_item_links_to_the_thought_page(
    agent: Any, owner: Any, owner_client: Client
) -> None:
    thought = thoughts_make(agent, 1)[0]
    queue = queue_make(members=[owner], thoughts=[thought], configs=configs_make())

    page = owner_client.get(f"/reviews/queues/{queue.pk}/")

    assert page.status_code == 200
    table = _items_table(page.text)
    assert f'href="/stream/{agent.name}/thoughts/{thought.pk}/"' in table


def test_a_scenario_item_links_to_the_scenario_page(
    owner: Any, owner_client: Client
) -> None:
    reviews_support.run_with_cases("run-links", reviews_support.cases_of(2))
    queue = queue_make(members=[owner], thoughts=[], configs=configs_make())
    items_add(queue, reviews_support.scenario_refs("run-links", 2))

    page = owner_client.get(f"/reviews/queues/{queue.pk}/")

    table = _items_table(page.text)
    assert 'href="/evals/runs/run-links/scenarios/c00/"' in table
    assert 'href="/evals/runs/run-links/scenarios/c01/"' in table


def test_an_item_whose_subject_is_gone_is_shown_without_a_link(
    agent: Any, owner: Any, owner_client: Client
) -> None:
    thought = thoughts_make(agent, 1)[0]
    queue = queue_make(members=[owner], thoughts=[thought], configs=configs_make())
    thought.delete()

    page = owner_client.get(f"/reviews/queues/{queue.pk}/")

    assert page.status_code == 200
    table = _items_table(page.text)
    assert "<a " not in table
    assert "thought number 0" in table or str(thought.pk) in table


def test_a_queue_from_a_comparison_links_back_to_the_comparison_and_its_runs(
    staff_client: Client,
) -> None:
    configs_make()

    page = staff_client.get(
        "/reviews/queues/new?from_compare=run-a...run-b&cases=flips"
    )

    assert page.status_code == 200
    intro = page.text.split('id="from-compare"')[1].split("</p>")[0]
    assert 'href="/evals/compare?base=run-a&amp;candidate=run-b"' in intro
    assert 'href="/evals/runs/run-a/"' in intro
    assert 'href="/evals/runs/run-b/"' in intro
    assert "the scenarios that flipped between the two" in intro


@pytest.mark.parametrize("pair", ["a/b...c", "...c", "a...", "a..c"])
def test_a_comparison_that_names_no_runs_gets_no_intro_and_no_error(
    staff_client: Client, pair: str
) -> None:
    configs_make()

    page = staff_client.get("/reviews/queues/new", {"from_compare": pair})

    assert page.status_code == 200
    assert 'id="from-compare"' not in page.text


def test_the_sitting_gives_a_scenarios_verdict_as_the_run_pages_do(
    owner: Any, owner_client: Client
) -> None:
    reviews_support.run_with_cases("run-words", {"c00": False})
    queue = queue_make(members=[owner], thoughts=[], configs=configs_make())
    items_add(queue, reviews_support.scenario_refs("run-words", 1))

    page = owner_client.get(f"/reviews/queues/{queue.pk}/review/")

    assert page.status_code == 200
    assert '<span class="fail">fail</span>' in page.text
    assert ">failed<" not in page.text


def test_the_queue_pages_headings_are_in_order_and_named_once(
    agent: Any, owner: Any, owner_client: Client
) -> None:
    queue = queue_make(
        members=[owner], thoughts=thoughts_make(agent, 1), configs=configs_make()
    )

    text = owner_client.get(f"/reviews/queues/{queue.pk}/").text

    headings = re.findall(r"<h([1-6])[^>]*>(.*?)</h\1>", text)
    levels = [int(level) for level, _ in headings]
    names = [name for _, name in headings]
    assert levels[0] == 1
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False))
    assert len(names) == len(set(names))


def test_a_config_page_links_to_its_benchmarks_and_its_agreement(
    staff_client: Client,
) -> None:
    from reviews.services.configs import config_attach

    reviews_support.run_with_cases("run-cfg", {"c00": True}, benchmark_id="suite-a")
    configs_make()
    config_attach(name="quality", benchmark_id="suite-a")

    page = staff_client.get("/reviews/configs/quality/")

    assert page.status_code == 200
    listed = page.text.split('id="benchmarks"')[1].split("</ul>")[0]
    assert '<a href="/benchmarks/suite-a/">suite-a</a>' in listed
    assert 'aria-label="Take quality off suite-a"' in listed
    assert 'id="config-agreement" href="/reviews/agreement/quality/v1/"' in page.text
