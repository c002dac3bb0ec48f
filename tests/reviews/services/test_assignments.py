"""A reviewer's sitting: next item, score, skip, second look; progress;
claiming never hands one place of an item to two reviewers."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import NotFound, SchemaInvalid
from reviews.models import ReviewAssignment, Score
from reviews.services.assignments import (
    assignment_get,
    assignment_score,
    assignment_second_look,
    assignment_skip,
    next_assignment,
    queue_progress,
    reviewer_progress,
)
from reviews.services.queues import items_add
from tests.builders import user_make
from tests.concurrency import run_together
from tests.reviews.reviews_support import (
    cases_of,
    configs_make,
    queue_make,
    run_with_cases,
    scenario_refs,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def configs() -> dict[str, Any]:
    return configs_make()


@pytest.fixture
def people() -> list[Any]:
    return [user_make(f"r{i}") for i in range(3)]


def filled(configs: dict, people: list[Any], count: int = 6, **queue: Any) -> Any:
    run_with_cases("run-1", cases_of(count))
    made = queue_make([configs["quality"], configs["verdict"]], people, **queue)
    items_add(made, scenario_refs("run-1", count))
    return made


def test_round_robin_next_is_the_reviewers_oldest_unfinished_item(
    configs: dict, people: list[Any]
) -> None:
    queue = filled(configs, people)
    first = next_assignment(queue, people[0])
    assert first is not None and first.item.ref == "run-1/c00"
    assert next_assignment(queue, people[0]) == first
    assert next_assignment(queue, people[1]).item.ref == "run-1/c01"


def test_scoring_stores_one_score_per_config_and_finishes_the_item(
    configs: dict, people: list[Any]
) -> None:
    queue = filled(configs, people)
    assignment = next_assignment(queue, people[0])
    scores = assignment_score(
        assignment, {"quality": "4", "verdict": "good"}, comment=" ok ", from_text=True
    )
    assert sorted((s.config.name, s.value_number, s.value_label) for s in scores) == [
        ("quality", 4.0, ""),
        ("verdict", None, "good"),
    ]
    assert {(s.source, s.author, s.item_id, s.comment) for s in scores} == {
        ("review", people[0], assignment.item_id, "ok")
    }
    assignment.refresh_from_db()
    assert (assignment.status, assignment.comment) == ("done", "ok")
    assert assignment.finished_at is not None
    assert next_assignment(queue, people[0]).item.ref == "run-1/c03"


def test_a_bad_value_names_its_config_and_stores_nothing(
    configs: dict, people: list[Any]
) -> None:
    queue = filled(configs, people)
    assignment = next_assignment(queue, people[0])
    with pytest.raises(SchemaInvalid) as exc:
        assignment_score(assignment, {"quality": 9, "verdict": "meh"})
    assert {p.path: p.message for p in exc.value.problems} == {
        "quality": "the value must be between 1 and 5.",
        "verdict": "the value must be one of: good, bad, unclear.",
    }
    with pytest.raises(SchemaInvalid) as exc:
        assignment_score(assignment, {"quality": 3}, from_text=True)
    assert [p.path for p in exc.value.problems] == ["verdict"]
    assert not Score.objects.exists()
    assignment.refresh_from_db()
    assert assignment.status == "pending"


def test_a_skip_in_round_robin_passes_the_item_to_another_reviewer(
    configs: dict, people: list[Any]
) -> None:
    queue = filled(configs, people, count=3)
    mine = next_assignment(queue, people[0])
    assignment_skip(mine, comment="not my area")
    mine.refresh_from_db()
    assert (mine.status, mine.comment) == ("skipped", "not my area")
    holders = ReviewAssignment.objects.filter(item=mine.item, status="pending")
    assert [a.reviewer for a in holders] in ([people[1]], [people[2]])
    assert next_assignment(queue, people[0]) is None


def test_a_second_look_is_counted_and_someone_else_gets_the_item(
    configs: dict, people: list[Any]
) -> None:
    queue = filled(configs, people, count=3)
    mine = next_assignment(queue, people[0])
    assignment_second_look(mine, comment="the frame looks wrong")
    assert (
        ReviewAssignment.objects.filter(item=mine.item, status="pending").count() == 1
    )
    assert queue_progress(queue).second_look == 1


def test_claim_hands_each_item_to_one_reviewer_unless_it_wants_two(
    configs: dict, people: list[Any]
) -> None:
    queue = filled(configs, people, count=3, assignment="claim")
    first = next_assignment(queue, people[0])
    second = next_assignment(queue, people[1])
    third = next_assignment(queue, people[2])
    assert len({a.item_id for a in (first, second, third)}) == 3
    # Every place is taken: a reviewer who comes late gets nothing.
    queue.members.add(late := user_make("late"))
    assert next_assignment(queue, late) is None
    # A skipped item is free again, for anyone but the one who skipped it.
    assignment_skip(first)
    assert next_assignment(queue, people[0]) is None
    queue.members.add(later := user_make("later"))
    assert next_assignment(queue, later).item_id == first.item_id


def test_claim_with_full_overlap_gives_each_item_to_two_reviewers(
    configs: dict, people: list[Any]
) -> None:
    queue = filled(configs, people, count=2, assignment="claim", overlap_percent=100)
    taken = [next_assignment(queue, p) for p in people for _ in range(1)]
    taken += [next_assignment(queue, people[2])]
    for person in people:
        mine = next_assignment(queue, person)
        if mine is not None and mine.status == "pending":
            assignment_score(mine, {"quality": 3, "verdict": "bad"})
    for item in queue.items.all():
        reviewers = list(item.assignments.values_list("reviewer", flat=True))
        assert len(reviewers) == len(set(reviewers)) <= 2
    assert sum(i.assignments.count() for i in queue.items.all()) <= 4


def test_progress_counts_per_queue_and_per_reviewer(
    configs: dict, people: list[Any]
) -> None:
    queue = filled(configs, people, count=6)
    for person in people[:2]:
        assignment_score(
            next_assignment(queue, person), {"quality": 2, "verdict": "bad"}
        )
    assignment_skip(next_assignment(queue, people[2]))
    progress = queue_progress(queue)
    assert (progress.items, progress.items_done, progress.reviews_wanted) == (6, 2, 6)
    assert (progress.reviews_done, progress.skipped, progress.pending) == (2, 1, 4)
    assert progress.percent_done == 33
    rows = {row.username: row for row in reviewer_progress(queue)}
    assert (rows["r0"].done, rows["r1"].done) == (1, 1)
    # r2's skipped item went to r0 or r1, next to the one each has left.
    assert rows["r0"].pending + rows["r1"].pending == 3
    assert (rows["r2"].skipped, rows["r2"].assigned) == (1, 2)


def test_progress_of_an_empty_queue_is_zero(configs: dict) -> None:
    queue = queue_make([configs["quality"]], [])
    assert queue_progress(queue).percent_done == 0
    assert reviewer_progress(queue) == []


def test_an_assignment_is_found_only_for_its_own_reviewer(
    configs: dict, people: list[Any]
) -> None:
    queue = filled(configs, people, count=3)
    mine = next_assignment(queue, people[0])
    assert assignment_get(queue, people[0], mine.pk) == mine
    with pytest.raises(NotFound):
        assignment_get(queue, people[1], mine.pk)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_claimers_never_share_an_items_only_place(
    configs: dict, people: list[Any]
) -> None:
    queue = filled(configs, people, count=4, assignment="claim")
    claimers = [user_make(f"c{i}") for i in range(6)]
    queue.members.add(*claimers)
    results = run_together(*[lambda p=p: next_assignment(queue, p) for p in claimers])
    claimed = [r for r in results if r is not None]
    assert not [r for r in results if isinstance(r, Exception)]
    assert len(claimed) == 4
    assert len({a.item_id for a in claimed}) == 4
    assert ReviewAssignment.objects.count() == 4


def test_scoring_an_item_on_several_configs_refreshes_its_run_once(
    configs: dict,
    people: list[Any],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from reviews.services import scores as scores_service

    queue = filled(configs, people, count=3)
    refreshed: list[str] = []
    monkeypatch.setattr(scores_service, "run_human_metrics_refresh", refreshed.append)
    with django_capture_on_commit_callbacks(execute=True):
        assignment_score(
            next_assignment(queue, people[0]), {"quality": 5, "verdict": "good"}
        )
    assert refreshed == ["run-1"]


def test_only_the_queues_reviewers_get_items(configs: dict, people: list[Any]) -> None:
    queue = filled(configs, people[:1], count=3, assignment="claim")
    outsider = user_make("outsider", is_staff=True)
    assert next_assignment(queue, outsider) is None
    assert not ReviewAssignment.objects.filter(reviewer=outsider).exists()
    assert next_assignment(queue, people[0]) is not None
