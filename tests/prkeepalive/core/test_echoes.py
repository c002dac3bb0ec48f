"""A copy of an instruction is never a fresh activation: markers escaped or
mangled on the way, an instruction's wording repeated, or any @agent comment
after the first round instruction (rounds continue from the instruction).
The cases are the comment detector fixtures of the workflow scripts the
keepalive contract comes from (see fixtures/upstream_comment_detection.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from prkeepalive.core.facts import Facts, decide
from prkeepalive.core.instruction import render_instruction
from prkeepalive.core.markers import has_damaged_marker
from prkeepalive.core.summary import decision_line
from prkeepalive.core.types import (
    Comment,
    Event,
    GateConclusion,
    Policy,
    PullRequest,
    Reason,
)

FIXTURES = json.loads(
    (
        Path(__file__).parent.parent / "fixtures" / "upstream_comment_detection.json"
    ).read_text(encoding="utf-8")
)["cases"]
POLICY = Policy(
    agent_aliases=("codex",), automation_logins=("stranske-automation-bot",)
)
ISSUE = "## Scope\nx\n## Tasks\n- [ ] y\n## Acceptance Criteria\n- z"
HEAD = "abc1234def5678"


def comment(raw: dict[str, Any]) -> Comment:
    return Comment(id=raw["id"], author=raw["author"], body=raw["body"])


def comment_lane(case: dict[str, Any]) -> tuple[Event, Facts]:
    c = comment(case["comment"])
    earlier = tuple(comment(e) for e in case["earlier"])
    event = Event(
        name="issue_comment",
        action="created",
        comment=c,
        issue_number=4000,
        is_pull_request=True,
    )
    pr = PullRequest(number=4000, head_sha=HEAD, comments=(*earlier, c))
    return event, Facts(
        pr=pr,
        labels=("agents:keepalive",),
        gate=GateConclusion.SUCCESS,
        issue_body=ISSUE,
    )


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_upstream_detector_fixtures_never_start_a_round(name: str) -> None:
    event, facts = comment_lane(FIXTURES[name])
    d = decide(event, facts, POLICY)
    assert d.reason is Reason.MARKERS_MISSING, d.detail
    assert decision_line(d) == (
        "DISPATCH: ok=false path=comment reason=markers-missing pr=#4000 "
        "activation=none agent=codex head=abc1234 cap=2 active=0 trace=-"
    )


@pytest.mark.parametrize("name", ["after_markers", "html_entities"])
def test_damaged_markers_are_recognised(name: str) -> None:
    assert has_damaged_marker(FIXTURES[name]["comment"]["body"])
    assert not has_damaged_marker("@codex please continue")
    marked = render_instruction(round=1, trace="t", agent="codex", segments="x")
    assert not has_damaged_marker(marked)  # intact markers are not damaged


def test_repeated_instruction_wording_is_refused_without_earlier_rounds() -> None:
    case = dict(FIXTURES["manual_repeat"], earlier=[])
    d = decide(*comment_lane(case), POLICY)
    assert d.reason is Reason.MARKERS_MISSING
    assert "repeats a round instruction's wording" in d.detail


def test_a_sanitised_echo_of_evalsites_own_instruction_is_refused() -> None:
    posted = render_instruction(
        round=1,
        trace="ka-4000-r1",
        agent="codex",
        segments="#### Tasks\n- [ ] y",
        execution_info="pr=#4000 head=abc1234 round=1",
    )
    escaped = posted.replace("<", "&amp;lt;").replace(">", "&amp;gt;")
    stripped = "\n".join(line for line in posted.splitlines() if "<!--" not in line)
    for body in (escaped, stripped):
        case = {"comment": {"id": 9, "author": "stranske", "body": body}, "earlier": []}
        assert decide(*comment_lane(case), POLICY).reason is Reason.MARKERS_MISSING


def test_a_person_may_still_activate_before_the_first_instruction() -> None:
    case = {
        "comment": {"id": 9, "author": "stranske", "body": "@codex please continue"},
        "earlier": [],
    }
    assert decide(*comment_lane(case), POLICY).ok


def test_gate_lane_never_falls_back_to_an_echo() -> None:
    echo = comment(FIXTURES["html_entities"]["comment"])
    event = Event(
        name="workflow_run",
        action="completed",
        workflow_name="Gate",
        status="completed",
        conclusion="success",
        head_sha=HEAD,
        pull_numbers=(4000,),
    )
    facts = Facts(
        pr=PullRequest(number=4000, head_sha=HEAD, comments=(echo,)),
        labels=("agents:keepalive",),
        gate=GateConclusion.SUCCESS,
        issue_body=ISSUE,
    )
    assert decide(event, facts, POLICY).reason is Reason.NO_ACTIVATION_FOUND
