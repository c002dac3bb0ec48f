"""stream.core.planning_stalls: the stall taxonomy (no database)."""

from __future__ import annotations

from typing import Any

import pytest

from stream.core.planning import (
    STUCK_PENDING_MS,
    TaskStatus,
)
from stream.core.planning_stalls import StallClass, StallInputs, classify_stall

P, A, C, F = (
    TaskStatus.PENDING,
    TaskStatus.ACTIVE,
    TaskStatus.COMPLETED,
    TaskStatus.FAILED,
)
MIN = 60_000


# --- stall taxonomy (the agency contract §7.3) ----------------------------------------------------------


def stall(**overrides: Any) -> StallClass | None:
    values: dict[str, Any] = {
        "status": P,
        "action": "collect",
        "goal_key": "collect:oak_log",
        "progress": 0.0,
        "created_ms": 0,
        "blocked_reason": "",
        "blocked_at_ms": None,
        "source_convert_eligible": True,
        "executor_seen_ms": MIN,
    }
    now = overrides.pop("now_ms", MIN)
    values.update(overrides)
    return classify_stall(StallInputs(**values), now_ms=now, executor_stale_ms=2 * MIN)


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({}, None),
        ({"status": C, "source_convert_eligible": False}, None),
        ({"status": F, "action": "dance"}, None),
        ({"source_convert_eligible": False}, StallClass.CONVERT_ELIGIBLE_GATE),
        ({"source_convert_eligible": None}, None),
        ({"action": "dance"}, StallClass.UNPLANNABLE),
        ({"goal_key": None}, StallClass.GOAL_KEY_MISSING),
        ({"goal_key": ""}, StallClass.GOAL_KEY_MISSING),
        (
            {"status": A, "blocked_reason": "no_path", "blocked_at_ms": 0},
            StallClass.BLOCKED_REASON,
        ),
        ({"blocked_reason": "no_path", "blocked_at_ms": None}, None),
        ({"executor_seen_ms": None}, StallClass.EXECUTOR_UNAVAILABLE),
        (
            {"executor_seen_ms": 0, "now_ms": 2 * MIN + 1},
            StallClass.EXECUTOR_UNAVAILABLE,
        ),
        (
            {"now_ms": STUCK_PENDING_MS, "executor_seen_ms": STUCK_PENDING_MS},
            StallClass.STUCK_PENDING,
        ),
        (
            {
                "now_ms": STUCK_PENDING_MS,
                "executor_seen_ms": STUCK_PENDING_MS,
                "progress": 0.1,
                "status": A,
            },
            None,
        ),
        (
            {"action": "dance", "goal_key": None, "executor_seen_ms": None},
            StallClass.UNPLANNABLE,
        ),
    ],
)
def test_stall_classes_and_their_precedence(
    overrides: dict[str, Any], expected: StallClass | None
) -> None:
    assert stall(**overrides) == expected


def test_stall_class_values_are_the_seeds_names() -> None:
    assert [c.value for c in StallClass] == [
        "convertEligible_gate",
        "unplannable",
        "goalKey_missing",
        "blocked_reason",
        "executor_unavailable",
        "stuck_pending",
    ]
