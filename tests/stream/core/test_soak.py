"""stream.core.soak: the soak acceptance checks (no database)."""

from __future__ import annotations

from typing import Any

import pytest

from stream.core.planning import TaskStatus
from stream.core.soak import SoakObservations, SoakTask, evaluate_soak

P, A, C, F = (
    TaskStatus.PENDING,
    TaskStatus.ACTIVE,
    TaskStatus.COMPLETED,
    TaskStatus.FAILED,
)
MIN = 60_000


# --- soak checks (the agency contract §7.2) -------------------------------------------------------


def soak_task(task_id: int, key: str, created: int, **kw: Any) -> SoakTask:
    values: dict[str, Any] = {
        "task_id": task_id,
        "goal_key": key,
        "is_drive_tick": True,
        "status": C,
        "created_ms": created,
        "claimed_ms": created + 1000,
        "first_progress_ms": created + 2000,
        "finished_ms": created + 3000,
        "source_convert_eligible": True,
    }
    values.update(kw)
    return SoakTask(**values)


HEALTHY = (
    soak_task(1, "collect:oak_log", 0),
    soak_task(
        2,
        "craft:crafting_table",
        3 * MIN,
        claimed_ms=9 * MIN,
        first_progress_ms=9 * MIN,
        finished_ms=9 * MIN + 1000,
    ),
    soak_task(3, "craft:crafting_table", 8 * MIN),
)


def observations(**overrides: Any) -> SoakObservations:
    values: dict[str, Any] = {
        "end_ms": 12 * MIN,
        "tasks": HEALTHY,
        "drive_ticks": 3,
        "goal_tags": 2,
        "intent_extractions": 1,
        "model_emits_intent": None,
        "creative_drive_ticks": 0,
        "creative_due_refusals": 4,
    }
    values.update(overrides)
    return SoakObservations(**values)


def verdicts(obs: SoakObservations) -> dict[int, bool]:
    return {c.check_id: c.passed for c in evaluate_soak(obs)}


def test_soak_checks_all_pass_on_a_healthy_run() -> None:
    checks = evaluate_soak(observations())
    assert [(c.check_id, c.name, c.passed) for c in checks] == [
        (1, "task_creation_cadence", True),
        (2, "executor_claims", True),
        (3, "progress_closure", True),
        (4, "idempotency_under_repetition", True),
        (5, "stuck_timeout_recovery", True),
        (6, "compliance_signal", True),
        (7, "no_low_novelty_task_creation", True),
        (8, "creative_spectator_safety", True),
    ]
    assert checks[4].observed == "stalled=[2] recovered=[2]"


@pytest.mark.parametrize(
    ("overrides", "failing"),
    [
        ({"drive_ticks": 0}, 1),
        ({"goal_tags": 0}, 1),
        (
            {"tasks": (soak_task(1, "a:b", 0), soak_task(2, "c:d", 2 * MIN))},
            1,
        ),
        (
            {
                "tasks": (
                    soak_task(
                        1, "a:b", 0, claimed_ms=None, first_progress_ms=None, status=F
                    ),
                )
            },
            2,
        ),
        ({"intent_extractions": 0}, 6),
        (
            {
                "tasks": (
                    *HEALTHY,
                    soak_task(
                        4, "x:y", 0, is_drive_tick=False, source_convert_eligible=False
                    ),
                )
            },
            7,
        ),
        ({"creative_drive_ticks": 1}, 8),
    ],
)
def test_each_soak_check_fails_on_its_own_violation(
    overrides: dict[str, Any], failing: int
) -> None:
    result = verdicts(observations(**overrides))
    assert [check for check, ok in result.items() if not ok] == [failing]


def test_soak_progress_closure_fails_when_nothing_finishes() -> None:
    open_task_ = soak_task(
        1, "a:b", 0, status=A, first_progress_ms=1000, finished_ms=None
    )
    result = verdicts(observations(tasks=(open_task_,)))
    assert result[3] is False


def test_soak_duplicate_while_the_first_is_young_or_moving_fails_check_4() -> None:
    young = (
        soak_task(1, "a:b", 0, finished_ms=None, status=A),
        soak_task(2, "a:b", MIN),
    )
    moving_old = (
        soak_task(1, "a:b", 0, first_progress_ms=MIN, finished_ms=None, status=A),
        soak_task(2, "a:b", 6 * MIN),
    )
    assert verdicts(observations(tasks=young))[4] is False
    assert verdicts(observations(tasks=moving_old))[4] is False


def test_soak_stall_without_recovery_fails_check_5() -> None:
    stalled = soak_task(
        1, "a:b", 0, claimed_ms=None, first_progress_ms=None, finished_ms=None, status=P
    )
    checks = evaluate_soak(observations(tasks=(stalled, soak_task(2, "c:d", 3 * MIN))))
    assert checks[4].passed is False
    assert checks[4].observed == "stalled=[1] recovered=[]"


def test_soak_compliance_passes_on_the_explicit_no_intent_observation() -> None:
    checks = evaluate_soak(observations(intent_extractions=0, model_emits_intent=False))
    assert checks[5].passed is True
    assert checks[5].observed == "intentExtractions=0; model emits no INTENT"


def test_soak_creative_check_says_when_not_tested() -> None:
    checks = evaluate_soak(observations(creative_drive_ticks=None))
    assert (checks[7].passed, checks[7].observed) == (
        True,
        "not tested (no creative window)",
    )
