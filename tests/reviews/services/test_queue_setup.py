"""queue_create_filled: the queue and its first items in one step, nothing
stored when the fill is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.errors import SchemaInvalid
from reviews.models import ReviewItem, ReviewQueue
from reviews.services.queue_setup import (
    Fill,
    compare_pair,
    queue_create_filled,
    queue_fill,
    refs_from_text,
)
from tests.reviews.review_pages_support import configs_make, thoughts_make
from tests.reviews.subjects_support import scenario_run, suites_private

pytestmark = pytest.mark.django_db


def _create(
    configs: list[Any], fill: Fill, members: tuple[str, ...] = ("alice",)
) -> Any:
    return queue_create_filled(
        name="Morning", configs=configs[:1], member_names=members, fill=fill
    )


def test_by_hand_makes_the_queue_and_its_items(agent: Any, owner: Any) -> None:
    thoughts = thoughts_make(agent, 2)

    queue, result = _create(
        configs_make(),
        Fill(how="hand", kind="thought", refs=tuple(str(t.pk) for t in thoughts)),
    )

    assert (result.added, result.already) == (2, 0)
    assert list(queue.members.all()) == [owner]
    assert ReviewItem.objects.filter(queue=queue).count() == 2


def test_a_rule_fills_from_a_run(settings: Any, tmp_path: Path, owner: Any) -> None:
    run = scenario_run(suites_private(settings, tmp_path))

    queue, result = _create(
        configs_make(), Fill(how="sample", run_id=run.run_id, percent=40)
    )

    assert result.added == 2  # 40% of 5 scenarios
    assert {i.run_id for i in ReviewItem.objects.filter(queue=queue)} == {run.run_id}


@pytest.mark.parametrize(
    ("fill", "members", "field"),
    [
        (Fill(how="hand", kind="thought", refs=("424242",)), ("alice",), "refs"),
        (Fill(how="hand", kind="thought", refs=()), ("alice",), "refs"),
        (Fill(how="hand", kind="nonsense", refs=("1",)), ("alice",), "kind"),
        (Fill(how="hallucinations", run_id="no-such-run"), ("alice",), "run_id"),
        (Fill(how="compare", compare="a..b"), ("alice",), "compare"),
        (Fill(how="compare", compare="a...b"), ("alice",), "base_run_id"),
        (Fill(how="telepathy"), ("alice",), "fill"),
        (Fill(how="hand", kind="thought", refs=("1",)), ("nobody",), "members"),
    ],
)
def test_a_refused_fill_stores_no_queue(
    agent: Any, owner: Any, fill: Fill, members: tuple[str, ...], field: str
) -> None:
    with pytest.raises(SchemaInvalid) as caught:
        _create(configs_make(), fill, members)

    assert [p.path for p in caught.value.problems] == [field]
    assert not ReviewQueue.objects.exists()
    assert not ReviewItem.objects.exists()


def test_queue_fill_adds_to_an_existing_queue_and_refuses_a_bad_fill(
    agent: Any, owner: Any
) -> None:
    thoughts = thoughts_make(agent, 2)
    queue, _ = _create(
        configs_make(), Fill(how="hand", kind="thought", refs=(str(thoughts[0].pk),))
    )

    added = queue_fill(
        queue, Fill(how="hand", kind="thought", refs=tuple(str(t.pk) for t in thoughts))
    )
    with pytest.raises(SchemaInvalid) as caught:
        queue_fill(queue, Fill(how="telepathy"))

    assert (added.added, added.already) == (1, 1)
    assert [p.path for p in caught.value.problems] == ["fill"]
    assert ReviewItem.objects.filter(queue=queue).count() == 2


def test_compare_pair_and_refs_from_text() -> None:
    assert compare_pair("r1...r2") == ("r1", "r2")
    assert compare_pair("r1..r2") is None
    assert compare_pair("...r2") is None
    assert refs_from_text(" 1\n\n2, 3\n1 ") == ("1", "2", "3")
