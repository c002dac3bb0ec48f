"""subject_context: what a reviewer sees of each kind of subject."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reviews.services.context import MapCell, goal_text, subject_context
from tests.builders import thought_actionable, user_make
from tests.reviews.subjects_support import (
    DECISION_LINE,
    SMOKE_FIRST,
    decision_make,
    episode_make,
    scenario_run,
    suites_private,
)

pytestmark = pytest.mark.django_db


def test_scenario_shows_frame_output_goal_and_grounding(
    settings: Any, tmp_path: Path, staff: Any
) -> None:
    run = scenario_run(suites_private(settings, tmp_path))
    case = run.case_results.get(case_id=SMOKE_FIRST)

    context = subject_context("scenario_result", f"{run.run_id}/{SMOKE_FIRST}", staff)

    assert context is not None
    view = context.scenario
    assert view is not None and context.thought is None
    details = case.details
    assert view.frame == details["frame"]["text"] and view.frame
    assert view.answer.output == details["rawOutput"]
    assert view.answer.run_id == run.run_id
    assert view.answer.passed is case.passed
    assert view.answer.eligible is details["convertEligible"]
    assert view.answer.grounding_reason == (details["grounding"]["reason"] or "")
    # The first run of a benchmark has nothing to stand beside it.
    assert view.other is None and view.other_label == ""


def test_scenario_of_a_later_run_shows_the_previous_runs_answer(
    settings: Any, tmp_path: Path, staff: Any
) -> None:
    suites = suites_private(settings, tmp_path)
    first = scenario_run(suites)
    second = scenario_run(suites)

    context = subject_context(
        "scenario_result", f"{second.run_id}/{SMOKE_FIRST}", staff
    )

    assert context is not None and context.scenario is not None
    other = context.scenario.other
    assert other is not None
    assert other.run_id == first.run_id
    assert context.scenario.other_label == "previous run"
    expected = first.case_results.get(case_id=SMOKE_FIRST).details["rawOutput"]
    assert other.output == expected


def test_thought_shows_text_eligibility_and_agent(agent: Any, owner: Any) -> None:
    thought = thought_actionable(agent, content="go get oak logs")

    context = subject_context("thought", str(thought.pk), owner)

    assert context is not None and context.thought is not None
    view = context.thought
    assert (view.agent_name, view.text) == (agent.name, "go get oak logs")
    assert (view.eligible, view.eligible_reason) == (True, "eligible")
    assert view.goal_key == "collect:oak_log"
    assert context.summary.url == f"/stream/{agent.name}/thoughts/{thought.pk}/"


def test_thought_page_link_is_left_out_for_a_viewer_who_cannot_open_it(
    agent: Any,
) -> None:
    thought = thought_actionable(agent)
    reviewer = user_make("reviewer")

    context = subject_context("thought", str(thought.pk), reviewer)

    assert context is not None and context.thought is not None
    assert context.summary.url == ""


def test_episode_shows_its_map_with_the_path_and_its_steps(staff: Any) -> None:
    episode = episode_make()

    context = subject_context("episode", str(episode.pk), staff)

    assert context is not None and context.episode is not None
    view = context.episode
    assert view.receipt_status == "intact"
    assert view.steps_taken == episode.steps == len(view.steps)
    assert view.steps[0].step in (0, 1)
    styles = {cell.style for row in view.grid for cell in row}
    assert {"start", "goal", "path", "wall"} <= styles
    assert sum(cell == MapCell("S", "start") for row in view.grid for cell in row) == 1


def test_keepalive_decision_shows_its_line_and_fields(staff: Any) -> None:
    decision = decision_make()

    context = subject_context("keepalive_decision", str(decision.pk), staff)

    assert context is not None and context.decision is not None
    view = context.decision
    assert view.line == DECISION_LINE and view.ok is True
    fields = dict(view.fields)
    assert fields["repository"] == "acme/widgets"
    assert fields["pull request"] == "#7 Parser fix"
    assert fields["rounds running / cap"] == "0 / 2"


@pytest.mark.parametrize(
    ("kind", "ref"),
    [("thought", "424242"), ("episode", "x"), ("scenario_result", "r/c"), ("z", "1")],
)
def test_subject_that_does_not_exist_has_no_context(kind: str, ref: str) -> None:
    assert subject_context(kind, ref, None) is None


def test_goal_text_reads_like_a_sentence() -> None:
    assert goal_text({"action": "collect", "target": "oak_log", "amount": 4}) == (
        "collect oak_log ×4"
    )
    assert goal_text({"action": "flee", "target": "zombie", "amount": None}) == (
        "flee zombie"
    )
    assert goal_text(None) == ""
