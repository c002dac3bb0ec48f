"""stream.core.planning: pure rules of planning (no database).

The drive tick's rules are tested in test_drive_tick.py, the soak
checks in test_soak.py, the metadata projection in test_planning_metadata.py,
the stall taxonomy in test_planning_stalls.py."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stream.core.drive_tick import DriveGoal, DriveReason, drive_tick_thought
from stream.core.planning import (
    STUCK_PENDING_MS,
    TRANSITIONS,
    ConversionOutcome,
    OpenTask,
    OriginKind,
    TaskAction,
    TaskOrigin,
    TaskStatus,
    ThoughtCandidate,
    allowed_from,
    check_progress,
    decide_conversion,
    decide_transition,
    find_suppressor,
    is_stuck,
    origin_to_wire,
    suppresses,
    task_title,
)

P, A, C, F = (
    TaskStatus.PENDING,
    TaskStatus.ACTIVE,
    TaskStatus.COMPLETED,
    TaskStatus.FAILED,
)
MIN = 60_000


# --- transitions ---------------------------------------------------------------------

EXPECTED_TRANSITIONS = {
    (P, TaskAction.CLAIM): A,
    (A, TaskAction.PROGRESS): A,
    (A, TaskAction.COMPLETE): C,
    (A, TaskAction.FAIL): F,
    (P, TaskAction.FAIL): F,
}


@pytest.mark.parametrize("status", list(TaskStatus))
@pytest.mark.parametrize("action", list(TaskAction))
def test_transition_table_is_exactly_the_documented_one(
    status: TaskStatus, action: TaskAction
) -> None:
    decision = decide_transition(status, action)
    expected = EXPECTED_TRANSITIONS.get((status, action))
    assert decision.to_status == expected
    assert decision.allowed is (expected is not None)
    assert decision.reason == (
        "ok"
        if expected is not None
        else f"illegal_transition:{status.value}->{action.value}"
    )


def test_terminal_statuses_have_no_way_out() -> None:
    assert not [key for key in TRANSITIONS if key[0] in (C, F)]


def test_allowed_from() -> None:
    assert allowed_from(TaskAction.CLAIM) == {P}
    assert allowed_from(TaskAction.FAIL) == {P, A}
    assert allowed_from(TaskAction.COMPLETE) == {A}


@pytest.mark.parametrize(
    ("current", "new", "problem"),
    [
        (0.0, 0.0, None),
        (0.2, 1.0, None),
        (0.5, 0.5, None),
        (0.5, 0.4, "progress_regressed"),
        (0.0, -0.01, "progress_out_of_range"),
        (0.0, 1.01, "progress_out_of_range"),
    ],
)
def test_check_progress(current: float, new: float, problem: str | None) -> None:
    assert check_progress(current, new) == problem


@given(
    st.floats(0, 1, allow_nan=False),
    st.floats(-2, 2, allow_nan=False, allow_infinity=False),
)
def test_progress_accepted_iff_fraction_and_not_backwards(
    current: float, new: float
) -> None:
    assert (check_progress(current, new) is None) == (0 <= new <= 1 and new >= current)


def test_origin_to_wire() -> None:
    assert origin_to_wire(TaskOrigin(OriginKind.GOAL_RESOLVER, "r", 4)) == {
        "kind": "goal_resolver",
        "name": "r",
        "parentTaskId": 4,
    }
    assert origin_to_wire(None) is None


def test_task_title() -> None:
    assert task_title("collect", "oak_log", 8) == "collect oak_log x8"
    assert task_title("explore", "nearby", None) == "explore nearby"


# --- idempotency (the agency contract §3.2) -----------------------------------------------------


def open_task(
    status: TaskStatus = P, age_ms: int = 0, progress: float = 0.0, key: str = "k:v"
) -> OpenTask:
    return OpenTask(1, key, status, 10 * MIN - age_ms, progress)


@pytest.mark.parametrize(
    ("task", "suppressing"),
    [
        (open_task(P, STUCK_PENDING_MS - 1), True),
        (open_task(P, STUCK_PENDING_MS), False),
        (open_task(P, STUCK_PENDING_MS + 1), False),
        (open_task(A, STUCK_PENDING_MS + MIN, 0.1), True),
        (open_task(P, STUCK_PENDING_MS + MIN, 0.1), True),
        (open_task(A, STUCK_PENDING_MS), False),
        (open_task(C, 0), False),
        (open_task(F, 0), False),
        (open_task(P, 0, key="other:key"), False),
    ],
)
def test_suppression_rule_and_stuck_timeout(task: OpenTask, suppressing: bool) -> None:
    assert suppresses(task, goal_key="k:v", now_ms=10 * MIN) is suppressing


@given(
    st.sampled_from(list(TaskStatus)),
    st.integers(0, 20 * MIN),
    st.floats(0, 1, allow_nan=False),
)
def test_suppresses_is_open_and_not_stuck(
    status: TaskStatus, age: int, progress: float
) -> None:
    task = OpenTask(1, "k:v", status, 0, progress)
    is_open = status in (P, A)
    assert suppresses(task, goal_key="k:v", now_ms=age) == (
        is_open and not is_stuck(task, now_ms=age)
    )
    assert is_stuck(task, now_ms=age) == (
        is_open and progress == 0 and age >= STUCK_PENDING_MS
    )


def test_find_suppressor_returns_the_oldest_blocker() -> None:
    tasks = [
        OpenTask(3, "k:v", P, 9 * MIN, 0.0),
        OpenTask(2, "k:v", A, 8 * MIN, 0.5),
        OpenTask(1, "k:v", P, 0, 0.0),  # stuck
    ]
    blocker = find_suppressor(tasks, goal_key="k:v", now_ms=10 * MIN)
    assert blocker is not None
    assert blocker.task_id == 2
    assert find_suppressor(tasks, goal_key="x:y", now_ms=10 * MIN) is None


# --- conversion (PA-D3, the agency contract §4.1) ----------------------------------------------------

GOAL = {"action": "collect", "target": "oak_log", "amount": 8}


def candidate(**overrides: Any) -> ThoughtCandidate:
    values: dict[str, Any] = {
        "thought_id": 7,
        "convert_eligible": True,
        "grounding_passed": True,
        "goal_key": "collect:oak_log",
        "metadata": {"extractedGoal": GOAL},
        "source": "agent",
        "eligibility_reason": "eligible",
    }
    values.update(overrides)
    return ThoughtCandidate(**values)


@pytest.mark.parametrize("eligible", [False, None])
def test_pa_d3_only_exactly_eligible_thoughts_convert(eligible: bool | None) -> None:
    decision = decide_conversion(
        candidate(convert_eligible=eligible), open_tasks=[], now_ms=0
    )
    assert (decision.outcome, decision.reason, decision.draft) == (
        ConversionOutcome.SKIPPED,
        "not_convert_eligible",
        None,
    )


@pytest.mark.parametrize(
    ("overrides", "outcome", "reason"),
    [
        ({"metadata": {}}, ConversionOutcome.SKIPPED, "no_extracted_goal"),
        (
            {"metadata": {"extractedGoal": "collect"}},
            ConversionOutcome.ERROR,
            "malformed_extracted_goal",
        ),
        (
            {"metadata": {"extractedGoal": {"action": "", "target": "x"}}},
            ConversionOutcome.ERROR,
            "malformed_extracted_goal",
        ),
        ({"grounding_passed": None}, ConversionOutcome.SKIPPED, "grounding_not_passed"),
    ],
)
def test_conversion_skip_and_error_reasons(
    overrides: dict[str, Any], outcome: ConversionOutcome, reason: str
) -> None:
    decision = decide_conversion(candidate(**overrides), open_tasks=[], now_ms=0)
    assert (decision.outcome, decision.reason, decision.draft) == (
        outcome,
        reason,
        None,
    )


def test_conversion_builds_the_draft() -> None:
    decision = decide_conversion(candidate(), open_tasks=[], now_ms=0)
    assert decision.outcome == ConversionOutcome.CONVERTED
    draft = decision.draft
    assert draft is not None
    assert (draft.title, draft.action, draft.target, draft.amount) == (
        "collect oak_log x8",
        "collect",
        "oak_log",
        8,
    )
    assert draft.goal_key == "collect:oak_log"
    assert draft.origin == TaskOrigin(OriginKind.COGNITION, "thought-to-task")
    assert (draft.tags, draft.category, draft.solver) == (
        ("thought-to-task", "gathering"),
        "gathering",
        "acquisition",
    )
    assert draft.metadata == {
        "goalKey": "collect:oak_log",
        "taskProvenance": {
            "thoughtId": 7,
            "convertEligible": True,
            "eligibilityReason": "eligible",
            "source": "agent",
            "extractedGoalSource": "llm",
        },
    }


@pytest.mark.parametrize(
    ("thought_key", "meta_key", "expected"),
    [
        ("collect:oak_log", "x:y", "collect:oak_log"),
        ("", "meta:key", "meta:key"),
        (None, "", "collect:oak_log"),
    ],
)
def test_seed004_goal_key_layers_treat_empty_as_absent(
    thought_key: str | None, meta_key: str, expected: str
) -> None:
    decision = decide_conversion(
        candidate(
            goal_key=thought_key,
            metadata={"extractedGoal": GOAL, "goalKey": meta_key},
        ),
        open_tasks=[],
        now_ms=0,
    )
    assert decision.draft is not None
    assert decision.draft.goal_key == expected


def test_goal_key_missing_everywhere_still_converts_without_one() -> None:
    decision = decide_conversion(
        candidate(
            goal_key="", metadata={"extractedGoal": {"action": "x", "target": ""}}
        ),
        open_tasks=[],
        now_ms=0,
    )
    assert decision.draft is not None
    assert decision.draft.goal_key is None
    assert decision.draft.metadata["goalKey"] is None


def test_conversion_suppressed_by_an_open_task_with_the_same_goal_key() -> None:
    blocker = OpenTask(41, "collect:oak_log", P, 0, 0.0)
    decision = decide_conversion(candidate(), open_tasks=[blocker], now_ms=MIN)
    assert (decision.outcome, decision.reason, decision.suppressed_by) == (
        ConversionOutcome.SKIPPED,
        "duplicate_goal_key",
        41,
    )
    stuck = decide_conversion(
        candidate(), open_tasks=[blocker], now_ms=STUCK_PENDING_MS
    )
    assert stuck.outcome == ConversionOutcome.CONVERTED


def test_drive_tick_thought_converts_with_its_own_origin_and_tags() -> None:
    shape = drive_tick_thought(
        DriveGoal("collect", "oak_log", 8, DriveReason.NO_LOGS),
        goal_key="collect:oak_log",
    )
    decision = decide_conversion(
        candidate(metadata=shape.metadata, source="drive-tick"),
        open_tasks=[],
        now_ms=0,
    )
    assert decision.draft is not None
    assert decision.draft.origin == TaskOrigin(OriginKind.COGNITION, "drive-tick")
    assert decision.draft.tags == ("drive-tick", "autonomous", "gathering")
    assert decision.draft.metadata["taskProvenance"]["extractedGoalSource"] == (
        "drive-tick"
    )
