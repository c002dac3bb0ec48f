"""Creating queues and filling them: by hand, by rule, from a compare
selection and from a saved search's subjects."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import SchemaInvalid
from reviews.models import QueueMember, ReviewAssignment, ReviewItem, ReviewQueue
from reviews.services.queues import (
    items_add,
    queue_configs,
    queue_create,
    queue_fill_compare,
    queue_fill_rule,
    queue_fill_subjects,
    queue_members_set,
    users_by_name,
)
from tests.builders import user_make
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


def paths(exc: pytest.ExceptionInfo[SchemaInvalid]) -> list[str]:
    return [p.path for p in exc.value.problems]


def test_a_queue_is_created_with_its_configs_and_reviewers(
    configs: dict, owner: Any, member: Any, staff: Any
) -> None:
    queue = queue_create(
        name=" Week 12 ",
        configs=[configs["quality"], configs["verdict"]],
        assignment="claim",
        overlap_percent="20",
        members=[owner, member, owner],
        user=staff,
    )
    assert (queue.name, queue.assignment, queue.overlap_percent) == (
        "Week 12",
        "claim",
        20,
    )
    assert [c.name for c in queue_configs(queue)] == ["quality", "verdict"]
    assert list(queue.members.order_by("username")) == [owner, member]
    assert queue.created_by == staff


@pytest.mark.parametrize(
    ("fields", "bad"),
    [
        ({"name": ""}, ["name"]),
        ({"configs": []}, ["configs"]),
        ({"assignment": "lottery"}, ["assignment"]),
        ({"overlap_percent": 101}, ["overlap_percent"]),
        ({"overlap_percent": "half"}, ["overlap_percent"]),
        ({"overlap_percent": True}, ["overlap_percent"]),
        ({"name": "", "overlap_percent": -1}, ["name", "overlap_percent"]),
    ],
)
def test_a_bad_queue_names_every_field_and_stores_nothing(
    configs: dict, fields: dict, bad: list[str]
) -> None:
    given = {"name": "q", "configs": [configs["quality"]], **fields}
    with pytest.raises(SchemaInvalid) as exc:
        queue_create(**given)
    assert paths(exc) == bad
    assert not ReviewQueue.objects.exists()


def test_two_versions_of_one_config_are_refused(configs: dict) -> None:
    from reviews.services.configs import config_new_version

    newer = config_new_version(
        name="quality", kind="numeric", min_value=0, max_value=10
    )
    with pytest.raises(SchemaInvalid) as exc:
        queue_create(name="q", configs=[configs["quality"], newer])
    assert paths(exc) == ["configs"]


def test_adding_by_hand_copies_the_subject_and_skips_what_is_there(
    configs: dict, owner: Any
) -> None:
    run_with_cases("run-1", cases_of(3))
    queue = queue_make([configs["quality"]], [owner])
    first = items_add(queue, scenario_refs("run-1", 2), user=owner)
    again = items_add(queue, scenario_refs("run-1", 3), user=owner)
    assert (first.added, first.already, again.added, again.already) == (2, 0, 1, 2)
    item = ReviewItem.objects.get(queue=queue, ref="run-1/c00")
    assert (item.run_id, item.agent_id, item.origin, item.added_by) == (
        "run-1",
        None,
        "hand",
        owner,
    )
    assert item.title.startswith("c00")


def test_one_unknown_subject_refuses_the_whole_fill(configs: dict, owner: Any) -> None:
    run_with_cases("run-1", cases_of(2))
    queue = queue_make([configs["quality"]], [owner])
    subjects = [
        *scenario_refs("run-1", 2),
        ("scenario_result", "run-1/ghost"),
        ("essay", "1"),
    ]
    with pytest.raises(SchemaInvalid) as exc:
        items_add(queue, subjects)
    assert paths(exc) == ["subjects"]
    assert "run-1/ghost" in exc.value.problems[0].message
    assert "2 subject(s)" in exc.value.problems[0].message
    assert not ReviewItem.objects.exists()


def test_an_empty_fill_is_refused(configs: dict) -> None:
    queue = queue_make([configs["quality"]], [])
    with pytest.raises(SchemaInvalid) as exc:
        items_add(queue, [])
    assert paths(exc) == ["subjects"]


def test_a_sample_rule_adds_its_share_of_the_runs_scenarios(
    configs: dict, owner: Any
) -> None:
    run_with_cases("run-1", cases_of(20))
    queue = queue_make([configs["quality"]], [owner])
    result = queue_fill_rule(queue, rule="sample", run_id="run-1", percent=25)
    assert result.added == 5
    items = ReviewItem.objects.filter(queue=queue)
    assert {item.origin for item in items} == {"rule"}
    # The same rule again picks the same scenarios.
    assert queue_fill_rule(queue, rule="sample", run_id="run-1", percent=25).added == 0


def test_the_hallucination_rule_adds_every_flagged_scenario(configs: dict) -> None:
    run_with_cases(
        "run-1",
        {"a": (False, "missing_item"), "b": True, "c": (False, "missing_entity")},
    )
    queue = queue_make([configs["quality"]], [])
    queue_fill_rule(queue, rule="hallucinations", run_id="run-1")
    assert sorted(ReviewItem.objects.values_list("ref", flat=True)) == [
        "run-1/a",
        "run-1/c",
    ]


def test_a_rule_that_matches_nothing_is_refused_naming_rule(configs: dict) -> None:
    run_with_cases("run-1", cases_of(3))
    queue = queue_make([configs["quality"]], [])
    with pytest.raises(SchemaInvalid) as exc:
        queue_fill_rule(queue, rule="hallucinations", run_id="run-1")
    assert paths(exc) == ["rule"]
    assert "no scenario of run run-1 has a hallucination" in str(exc.value)
    with pytest.raises(SchemaInvalid) as exc:
        queue_fill_rule(queue, rule="sample", run_id="ghost", percent=10)
    assert paths(exc) == ["run_id"]
    with pytest.raises(SchemaInvalid) as exc:
        queue_fill_rule(queue, rule="sample", run_id="run-1", percent=0)
    assert paths(exc) == ["percent"]
    assert not ReviewItem.objects.exists()


def test_a_compare_selection_adds_the_candidates_flips(configs: dict) -> None:
    run_with_cases("base", {"a": True, "b": True, "c": False, "d": True})
    run_with_cases("cand", {"a": False, "b": True, "c": True, "d": True})
    queue = queue_make([configs["verdict"]], [])
    result = queue_fill_compare(queue, base_run_id="base", candidate_run_id="cand")
    assert result.added == 2
    assert sorted(ReviewItem.objects.values_list("ref", "origin")) == [
        ("cand/a", "compare"),
        ("cand/c", "compare"),
    ]


def test_a_compare_selection_can_name_its_cases(configs: dict) -> None:
    run_with_cases("base", {"a": True, "b": True})
    run_with_cases("cand", {"a": True, "b": True})
    queue = queue_make([configs["verdict"]], [])
    with pytest.raises(SchemaInvalid) as exc:
        queue_fill_compare(queue, base_run_id="base", candidate_run_id="cand")
    assert paths(exc) == ["cases"]
    with pytest.raises(SchemaInvalid) as exc:
        queue_fill_compare(
            queue, base_run_id="base", candidate_run_id="cand", case_ids=["a", "zz"]
        )
    assert paths(exc) == ["cases"]
    with pytest.raises(SchemaInvalid) as exc:
        queue_fill_compare(queue, base_run_id="ghost", candidate_run_id="cand")
    assert paths(exc) == ["base_run_id"]
    assert not ReviewItem.objects.exists()
    queue_fill_compare(
        queue, base_run_id="base", candidate_run_id="cand", case_ids=["b"]
    )
    assert list(ReviewItem.objects.values_list("ref", flat=True)) == ["cand/b"]


def test_a_saved_searchs_subjects_fill_the_queue(configs: dict) -> None:
    run_with_cases("run-1", cases_of(2))
    queue = queue_make([configs["quality"]], [])
    assert queue_fill_subjects(queue, scenario_refs("run-1", 2)).added == 2
    assert {i.origin for i in ReviewItem.objects.all()} == {"search"}
    with pytest.raises(SchemaInvalid) as exc:
        queue_fill_subjects(queue, [])
    assert paths(exc) == ["search"]


def test_round_robin_hands_new_items_out_evenly(configs: dict) -> None:
    people = [user_make(f"r{i}") for i in range(3)]
    run_with_cases("run-1", cases_of(10))
    queue = queue_make([configs["quality"]], people)
    items_add(queue, scenario_refs("run-1", 7))
    items_add(queue, [("scenario_result", f"run-1/c{i:02d}") for i in range(7, 10)])
    per = [ReviewAssignment.objects.filter(reviewer=p).count() for p in people]
    assert sorted(per) == [3, 3, 4]
    assert ReviewAssignment.objects.count() == 10


def test_the_overlap_share_gets_two_different_reviewers(configs: dict) -> None:
    people = [user_make(f"r{i}") for i in range(3)]
    run_with_cases("run-1", cases_of(40))
    queue = queue_make([configs["quality"]], people, overlap_percent=30)
    items_add(queue, scenario_refs("run-1", 40))
    doubled = ReviewItem.objects.filter(reviewers_wanted=2)
    assert 4 <= doubled.count() <= 24
    for item in doubled:
        reviewers = list(item.assignments.values_list("reviewer_id", flat=True))
        assert len(reviewers) == 2 and len(set(reviewers)) == 2
    # The same subjects in another queue get the same share.
    other = queue_make([configs["quality"]], people, overlap_percent=30, name="b")
    items_add(other, scenario_refs("run-1", 40))
    assert set(doubled.values_list("ref", flat=True)) == set(
        ReviewItem.objects.filter(queue=other, reviewers_wanted=2).values_list(
            "ref", flat=True
        )
    )


def test_a_claim_queue_hands_out_nothing_at_fill_time(
    configs: dict, owner: Any
) -> None:
    run_with_cases("run-1", cases_of(3))
    queue = queue_make([configs["quality"]], [owner], assignment="claim")
    items_add(queue, scenario_refs("run-1", 3))
    assert not ReviewAssignment.objects.exists()


def test_a_reviewer_taken_off_gives_back_unfinished_items(
    configs: dict, owner: Any, member: Any
) -> None:
    run_with_cases("run-1", cases_of(4))
    queue = queue_make([configs["quality"]], [owner, member])
    items_add(queue, scenario_refs("run-1", 4))
    done = ReviewAssignment.objects.filter(reviewer=member).first()
    done.status = "done"
    done.save()
    queue_members_set(queue, [owner])
    assert list(
        QueueMember.objects.filter(queue=queue).values_list("user", flat=True)
    ) == [owner.pk]
    assert list(ReviewAssignment.objects.filter(reviewer=member)) == [done]


def test_users_by_name_refuses_nobody(owner: Any, member: Any) -> None:
    assert users_by_name(["bob", " alice ", ""]) == [member, owner]
    with pytest.raises(SchemaInvalid) as exc:
        users_by_name(["alice", "zed"])
    assert paths(exc) == ["members"]
    assert "zed" in str(exc.value)
