"""The review pages give the pipeline's codes in words: a reason such as
``no_tag`` or ``no_goal`` reads as a phrase, free text is left alone, and
the sitting does not say the same thing twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from reviews.services.queues import items_add
from reviews.templatetags.review_words import in_words
from tests.reviews.review_pages_support import configs_make, queue_make
from tests.reviews.subjects_support import SMOKE_FIRST, scenario_run, suites_private

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("no_tag", "no GOAL tag"),
        ("no_goal", "no goal"),
        ("missing_item", "missing item"),
        ("low_stimulus_stable", "low stimulus stable"),
        ("grounded", "grounded"),
        ("Timeout after 30 s in run_case", "Timeout after 30 s in run_case"),
        ("", ""),
        (None, ""),
    ],
)
def test_codes_read_as_words_and_other_text_is_left_alone(
    code: Any, words: str
) -> None:
    assert in_words(code) == words


def test_the_sitting_shows_a_scenarios_reasons_in_words(
    owner: Any, owner_client: Client, settings: Any, tmp_path: Path
) -> None:
    run = scenario_run(suites_private(settings, tmp_path))
    queue = queue_make(members=[owner], thoughts=[], configs=configs_make())
    items_add(queue, [("scenario_result", f"{run.run_id}/{SMOKE_FIRST}")])

    text = owner_client.get(f"/reviews/queues/{queue.pk}/review/").text

    answer = text.split('class="answer"')[1].split("</table>")[0]
    assert "none (no GOAL tag)" in answer
    assert "no · no goal" in answer
    assert "no_" not in answer
    # No goal to ground is said once, not followed by its code again.
    assert "no goal to ground</span></td>" in answer.replace("\n", "").replace(
        "      ", ""
    )
