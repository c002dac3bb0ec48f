"""The thought's decision is one typed record with one wire pair: what the
writers store reads back as the same record, the stored keys and their
order are the ones written before the record existed, and a goal that
cannot be read is refused by name."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stream.core.drive_tick import (
    DriveGoal,
    DriveReason,
    build_goal_tag,
    drive_tick_thought,
)
from stream.core.thought_decision import (
    MalformedGoal,
    ThoughtDecision,
    decision_from_wire,
    decision_to_wire,
)
from stream.core.types import Goal, GroundingCategory, GroundingResult
from stream.core.wire import goal_to_wire, grounding_to_wire

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_ ", min_size=1, max_size=12)
goals = st.builds(
    Goal,
    action=words,
    target=st.text(max_size=12),
    target_id=st.none() | words,
    amount=st.none() | st.integers(min_value=-3, max_value=64),
    raw=st.text(max_size=20),
)
groundings = st.builds(
    GroundingResult,
    passed=st.booleans(),
    reason=st.text(max_size=12),
    category=st.none() | st.sampled_from(list(GroundingCategory)),
    missing=st.lists(words, max_size=3).map(tuple),
)
decisions = st.builds(
    ThoughtDecision,
    goal=st.none() | goals,
    goal_key=st.none() | words,
    grounding=groundings,
    convert_eligible=st.none() | st.booleans(),
    eligibility_reason=st.text(max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(decisions)
def test_a_stored_decision_reads_back_as_the_same_record(
    decision: ThoughtDecision,
) -> None:
    stored = json.loads(json.dumps(decision_to_wire(decision)))
    assert (
        decision_from_wire(
            stored,
            convert_eligible=decision.convert_eligible,
            eligibility_reason=decision.eligibility_reason,
        )
        == decision
    )


@settings(max_examples=200, deadline=None)
@given(decisions)
def test_the_stored_keys_are_the_goal_and_grounding_shapes_in_their_order(
    decision: ThoughtDecision,
) -> None:
    wire = decision_to_wire(decision)
    assert list(wire) == ["extractedGoal", "goalKey", "grounding"]
    assert wire["extractedGoal"] == goal_to_wire(decision.goal)
    assert wire["goalKey"] == (decision.goal_key or None)
    assert decision.grounding is not None
    assert wire["grounding"] == grounding_to_wire(decision.grounding)


def test_grounding_passed_is_none_without_a_goal() -> None:
    grounding = GroundingResult(True, "grounded", None, ())
    goal = Goal("collect", "oak_log", None, 2, "[GOAL: collect oak_log 2]")
    assert (
        ThoughtDecision(None, None, grounding, False, "no_goal").grounding_passed
        is None
    )
    assert ThoughtDecision(goal, "k", grounding, True, "ok").grounding_passed is True
    failed = GroundingResult(False, "missing_entity", None, ("x",))
    assert ThoughtDecision(goal, "k", failed, False, "g").grounding_passed is False


def test_the_columns_hold_the_decision_by_field_name() -> None:
    goal = Goal("collect", "oak_log", None, 2, "r")
    decision = ThoughtDecision(
        goal, "collect:oak_log", GroundingResult(True, "grounded", None, ()), True, "ok"
    )
    assert decision.columns() == {
        "convert_eligible": True,
        "eligibility_reason": "ok",
        "grounding_passed": True,
        "goal_key": "collect:oak_log",
    }


@pytest.mark.parametrize(
    "goal",
    [
        "collect oak_log",
        ["collect"],
        {"target": "oak_log"},
        {"action": "", "target": "oak_log"},
        {"action": "collect", "target": None},
        {"action": 3, "target": "x"},
    ],
)
def test_a_goal_that_cannot_be_read_is_refused(goal: Any) -> None:
    with pytest.raises(MalformedGoal):
        decision_from_wire(
            {"extractedGoal": goal}, convert_eligible=True, eligibility_reason=""
        )


def test_absent_keys_read_as_no_goal_no_key_and_no_grounding() -> None:
    decision = decision_from_wire({}, convert_eligible=None, eligibility_reason="x")
    assert decision == ThoughtDecision(None, None, None, None, "x")


def test_drive_tick_metadata_keeps_its_bytes_and_reads_back() -> None:
    goal = DriveGoal("collect", "oak_log", 8, DriveReason.NO_LOGS)
    shape = drive_tick_thought(goal, goal_key="collect:oak_log")
    assert json.dumps(shape.metadata) == json.dumps(
        {
            "source": "drive-tick",
            "cognitiveSystem": "drive-tick",
            "extractedGoalSource": "drive-tick",
            "extractedGoal": {
                "action": "collect",
                "target": "oak_log",
                "targetId": None,
                "amount": 8,
                "raw": build_goal_tag("collect", "oak_log", 8),
            },
            "goalKey": "collect:oak_log",
            "grounding": {
                "pass": True,
                "reason": "drive_tick",
                "category": None,
                "missing": [],
            },
            "novelty": "high",
            "convertEligible": True,
            "tags": ["drive-tick", "autonomous", goal.category],
            "category": goal.category,
            "driveReason": "no_logs",
        }
    )
    assert (
        decision_from_wire(
            shape.metadata, convert_eligible=True, eligibility_reason="drive_tick"
        )
        == shape.decision
    )
