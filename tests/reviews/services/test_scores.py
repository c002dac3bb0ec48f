"""Giving and editing scores, with their history."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import SchemaInvalid
from reviews.models import Score, ScoreRevision
from reviews.services import scores as scores_service
from reviews.services.scores import (
    Giver,
    comment_check,
    score_give,
    score_history,
    score_value,
    scores_of_subjects,
    subject_find,
    value_read,
)
from tests.reviews.reviews_support import configs_make, run_with_cases

pytestmark = pytest.mark.django_db


@pytest.fixture
def configs() -> dict[str, Any]:
    return configs_make()


@pytest.fixture
def run() -> Any:
    return run_with_cases("run-1", {"c00": True, "c01": False})


def give(
    config: Any, value: Any, giver: Giver, ref: str = "run-1/c00", comment: str = ""
) -> tuple[Score, bool]:
    subject = subject_find("scenario_result", ref)
    return score_give(
        config=config,
        subject=subject,
        kind="scenario_result",
        ref=ref,
        value=value_read(config, value),
        comment=comment,
        giver=giver,
        source=Score.Source.API,
    )


def test_a_score_copies_its_subjects_run_and_case(
    configs: dict, run: Any, owner: Any
) -> None:
    score, created = give(configs["quality"], 4, Giver(user=owner), comment="fine")
    assert created is True
    assert (score.run_id, score.case_id, score.agent_id) == ("run-1", "c00", None)
    assert (score.value_number, score.value_label, score.comment) == (4.0, "", "fine")
    assert score_value(score) == 4.0


def test_the_same_giver_edits_the_score_and_the_old_value_is_kept(
    configs: dict, run: Any, owner: Any, member: Any
) -> None:
    first, _ = give(configs["verdict"], "good", Giver(user=owner), comment="ok")
    again, created = give(configs["verdict"], "bad", Giver(user=owner), comment="no")
    assert created is False and again.pk == first.pk
    assert (again.value_label, again.comment) == ("bad", "no")
    (revision,) = score_history(again)
    assert (revision.value_label, revision.comment, revision.changed_by) == (
        "good",
        "ok",
        owner,
    )
    # Another person scores the same subject: a second score, no revision.
    other, created = give(configs["verdict"], "good", Giver(user=member))
    assert created is True and other.pk != first.pk
    assert ScoreRevision.objects.count() == 1


def test_posting_the_same_value_again_adds_no_revision(
    configs: dict, run: Any, owner: Any
) -> None:
    give(configs["grounded"], True, Giver(user=owner))
    give(configs["grounded"], True, Giver(user=owner))
    assert ScoreRevision.objects.count() == 0


def test_a_key_gives_scores_without_an_author(
    configs: dict, run: Any, agent: Any
) -> None:
    key = agent.api_key
    score, created = give(configs["grounded"], False, Giver(api_key=key))
    again, created_again = give(configs["grounded"], True, Giver(api_key=key))
    assert created and not created_again
    assert (again.author, again.api_key, score_value(again)) == (None, key, True)
    (revision,) = score_history(again)
    assert (revision.changed_by_key, revision.value_label) == (key, "false")


def test_a_giver_is_a_person_or_a_key() -> None:
    with pytest.raises(ValueError, match="not both"):
        Giver()


@pytest.mark.parametrize(
    ("kind", "ref", "field"),
    [
        ("essay", "run-1/c00", "kind"),
        ("scenario_result", "run-1/nope", "ref"),
        ("scenario_result", "ghost/c00", "ref"),
        ("scenario_result", "", "ref"),
        ("thought", "123456", "ref"),
        ("scenario_result", "x" * 500, "ref"),
    ],
)
def test_an_unknown_subject_names_kind_or_ref(
    run: Any, kind: str, ref: str, field: str
) -> None:
    with pytest.raises(SchemaInvalid) as exc:
        subject_find(kind, ref)
    assert [p.path for p in exc.value.problems] == [field]


def test_a_comment_must_be_a_short_text() -> None:
    assert comment_check("  fine ") == "fine"
    assert comment_check(None) == ""
    for bad in (3, "x" * 10_001):
        with pytest.raises(SchemaInvalid) as exc:
            comment_check(bad)
        assert [p.path for p in exc.value.problems] == ["comment"]


def test_saving_a_run_score_refreshes_the_runs_human_metrics_after_commit(
    configs: dict,
    run: Any,
    owner: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    refreshed: list[str] = []
    monkeypatch.setattr(scores_service, "run_human_metrics_refresh", refreshed.append)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        give(configs["quality"], 5, Giver(user=owner))
    assert refreshed == []
    for callback in callbacks:
        callback()
    assert refreshed == ["run-1"]


def test_the_refresh_really_stores_the_human_metric(
    configs: dict, run: Any, owner: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        give(configs["quality"], 5, Giver(user=owner))
    run.refresh_from_db()
    assert any(name.startswith("human.quality") for name in run.metrics)


def test_scores_of_subjects_finds_every_score_of_them(
    configs: dict, run: Any, owner: Any
) -> None:
    give(configs["quality"], 5, Giver(user=owner))
    give(configs["quality"], 2, Giver(user=owner), ref="run-1/c01")
    found = scores_of_subjects([("scenario_result", "run-1/c01")])
    assert [s.value_number for s in found] == [2.0]
    assert scores_of_subjects([]) == []
