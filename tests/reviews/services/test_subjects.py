"""subject_summary: what an item copies from each kind of subject, and None
for every ref that names nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reviews.services.subjects import (
    SubjectSummary,
    primary_key,
    scenario_run_of,
    split_scenario_ref,
    subject_summary,
)
from tests.builders import thought_actionable
from tests.reviews.reviews_support import run_with_cases
from tests.reviews.subjects_support import (
    DECISION_LINE,
    SMOKE_FIRST,
    decision_make,
    episode_make,
    scenario_run,
    suites_private,
)

pytestmark = pytest.mark.django_db


def test_scenario_result_summary_names_the_run_and_the_case(
    settings: Any, tmp_path: Path
) -> None:
    run = scenario_run(suites_private(settings, tmp_path))

    summary = subject_summary("scenario_result", f"{run.run_id}/{SMOKE_FIRST}")

    assert summary == SubjectSummary(
        agent_id=None,
        run_id=run.run_id,
        case_id=SMOKE_FIRST,
        title=f"{SMOKE_FIRST} · {run.benchmark.title}",
        url=f"/evals/runs/{run.run_id}/scenarios/{SMOKE_FIRST}/",
    )


def test_scenario_result_of_an_unknown_case_or_run_is_none(
    settings: Any, tmp_path: Path
) -> None:
    run = scenario_run(suites_private(settings, tmp_path))

    assert subject_summary("scenario_result", f"{run.run_id}/smoke:nope") is None
    assert subject_summary("scenario_result", f"no-such-run/{SMOKE_FIRST}") is None
    assert subject_summary("scenario_result", run.run_id) is None


def test_thought_summary_carries_its_agent_and_first_words(agent: Any) -> None:
    thought = thought_actionable(agent, content="  a creeper\nnear the   door " * 20)

    summary = subject_summary("thought", str(thought.pk))

    assert summary is not None
    assert summary.agent_id == agent.pk
    assert summary.run_id == ""
    assert summary.title.startswith("a creeper near the door a creeper")
    assert len(summary.title) == 120 and summary.title.endswith("…")
    assert summary.url == f"/stream/{agent.name}/thoughts/{thought.pk}/"


def test_episode_summary_names_its_batch_run() -> None:
    episode = episode_make()

    summary = subject_summary("episode", str(episode.pk))

    assert summary is not None
    assert summary.run_id == episode.batch.run.run_id
    assert summary.title == f"episode 0 of batch {episode.batch.pk} (hazard)"
    assert summary.url == f"/gridworld/batches/{episode.batch.pk}/episodes/0/"


def test_keepalive_decision_summary_is_its_line_and_pull_page() -> None:
    decision = decision_make()

    summary = subject_summary("keepalive_decision", str(decision.pk))

    assert summary is not None
    assert summary.title == DECISION_LINE
    assert summary.url == "/prkeepalive/acme/widgets/pull/7/"
    assert summary.agent_id is None and summary.run_id == ""


@pytest.mark.parametrize(
    ("kind", "ref"),
    [
        ("thought", "999999"),
        ("thought", "abc"),
        ("thought", "-1"),
        ("thought", "0"),
        ("thought", "١٢"),
        ("thought", str(2**63)),
        ("episode", "999999"),
        ("keepalive_decision", "999999"),
        ("nonsense", "1"),
        ("thought", ""),
        ("thought", "   "),
    ],
)
def test_refs_that_name_nothing_give_none(kind: str, ref: str) -> None:
    assert subject_summary(kind, ref) is None


def test_split_scenario_ref_keeps_slashes_of_the_case_id() -> None:
    assert split_scenario_ref("r1/suite:a/b") == ("r1", "suite:a/b")
    assert split_scenario_ref("r1/") is None
    assert split_scenario_ref("/c") is None


def test_scenario_run_of_finds_the_run_and_keeps_the_case_id() -> None:
    run = run_with_cases("r1", {"a": True})

    found = scenario_run_of("r1/suite:a/b")

    assert found is not None
    assert (found[0].pk, found[1]) == (run.pk, "suite:a/b")
    assert scenario_run_of("no-such-run/a") is None
    assert scenario_run_of("r1/") is None


def test_primary_key_takes_only_positive_ascii_digits() -> None:
    assert primary_key("42") == 42
    assert primary_key("+42") is None
    assert primary_key("4 2") is None
