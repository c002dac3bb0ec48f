"""The eval harness service: what each scenario logs through the pipeline
(EV-C3 frame counts, PA-D1..PA-D3 goals and grounding, EV-C6 thought_only
mode), with the exact log lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.evals.harness_support import (
    SHIPPED,
    SMOKE_IDS,
    lines_of,
    run_suite,
    write_lines,
)

pytestmark = pytest.mark.django_db


# --- EV-C3, PA-D1..D3 --------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "counts"),
    [
        ("minimal", [(5, 0, 0)] * 5),
        ("balanced", [(10, 0, 0), (10, 1, 0), (10, 0, 0), (9, 0, 0), (10, 0, 0)]),
        ("rich", [(10, 0, 0), (11, 1, 1), (11, 0, 1), (9, 0, 1), (11, 0, 2)]),
    ],
)
def test_ev_c3_each_scenario_logs_profile_and_frame_counts(
    profile: str, counts: list[tuple[int, int, int]], log_lines: Any
) -> None:
    run_suite(SHIPPED / "smoke.jsonl", profile=profile, seed=7)

    assert log_lines("[Eval] scenario_run") == [
        f"[Eval] scenario_run id={sid} profile={profile} facts={f} memories={m} "
        f"deltas={d} seed=7"
        for sid, (f, m, d) in zip(SMOKE_IDS, counts, strict=True)
    ]


def test_pa_d2_grounded_goals_log_goal_emitted(log_lines: Any) -> None:
    run_suite(SHIPPED / "smoke.jsonl")

    assert log_lines("[Eval] goal_emitted") == [
        "[Eval] goal_emitted scenario=smoke:hunger-raw-mutton action=smelt "
        "target=raw_mutton grounding=pass routable=true",
        "[Eval] goal_emitted scenario=smoke:zombie-close action=build "
        "target=cobblestone grounding=pass routable=true",
    ]


def test_pa_d3_goal_less_thoughts_log_no_goal_and_stay_ineligible(
    log_lines: Any,
) -> None:
    run = run_suite(SHIPPED / "smoke.jsonl")

    assert log_lines("[Eval] no_goal") == [
        "[Eval] no_goal scenario=smoke:stable-plains convertEligible=false",
        "[Eval] no_goal scenario=smoke:sheltered-night convertEligible=false",
        "[Eval] no_goal scenario=smoke:fox-at-dawn convertEligible=false",
    ]
    eligible = {
        c.case_id: (c.details["convertEligible"], c.details["convertEligibleReason"])
        for c in run.case_results.all()
    }
    assert eligible == {
        "smoke:stable-plains": (False, "no_goal"),
        "smoke:sheltered-night": (False, "no_goal"),
        "smoke:hunger-raw-mutton": (True, "eligible"),
        "smoke:fox-at-dawn": (False, "no_goal"),
        "smoke:zombie-close": (True, "eligible"),
    }


def test_pa_d1_fabricated_entity_logs_grounding_fail_and_fails_the_run(
    suites: Path, log_lines: Any
) -> None:
    script = suites / "smoke.script.jsonl"
    rows = [json.loads(line) for line in lines_of(script)]
    # fox-at-dawn is "allowed": acting is fine, inventing a wolf is not.
    rows[3]["output"] = "A wolf is stalking the fox. [GOAL: navigate wolf]"
    write_lines(script, [json.dumps(r) for r in rows])

    run = run_suite(suites / "smoke.jsonl")

    assert log_lines("[Grounding]") == [
        "[Grounding] fail scenario=smoke:fox-at-dawn reason=missing_entity"
    ]
    assert (
        "[Eval] goal_emitted scenario=smoke:fox-at-dawn action=navigate "
        "target=wolf grounding=fail routable=true"
    ) in log_lines("[Eval] goal_emitted")
    assert log_lines("[Eval] FAIL") == [
        "[Eval] FAIL properties_satisfied=false failed=no_hallucination"
    ]
    assert run.metrics["hallucination_count"] == 1
    assert run.metrics["hallucination_missing_entity"] == 1
    # An ungrounded goal is no action (as in the reference harness), so the
    # actions' pass rate stays 1 and the goals' rate shows the failure.
    assert run.metrics["grounding_pass_rate"] == 1.0
    assert run.metrics["goal_grounding_pass_rate"] == pytest.approx(2 / 3)
    fox = run.case_results.get(case_id="smoke:fox-at-dawn")
    assert fox.passed is False
    assert fox.details["grounding"] == {
        "pass": False,
        "reason": "missing_entity",
        "category": "missing_entity",
        "referencedFacts": [],
        "violations": [{"type": "missing_entity", "trigger": "wolf"}],
    }
    assert fox.details["convertEligible"] is False
    assert fox.details["convertEligibleReason"] == "grounding_fail:missing_entity"
    assert fox.details["failReasons"] == ["hallucination:missing_entity"]


# --- EV-C6 (thought_only; end_to_end in test_execute_end_to_end.py) ----------


def test_ev_c6_thought_only_logs_its_mode_once_and_publishes_nothing(
    log_lines: Any,
) -> None:
    from stream.models import Thought

    run = run_suite(SHIPPED / "smoke.jsonl")

    assert log_lines("[Eval] mode=") == ["[Eval] mode=thought_only"]
    assert Thought.objects.count() == 0
    assert "agent" not in run.config
