"""planning_poll and soak commands, and the planning Celery tasks."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from stream.core.soak import SoakCheck
from stream.models import Task, Thought
from stream.services.soak import SoakReport, soak_run

pytestmark = pytest.mark.django_db

CHECK_NAMES = [
    "task_creation_cadence",
    "executor_claims",
    "progress_closure",
    "idempotency_under_repetition",
    "stuck_timeout_recovery",
    "compliance_signal",
    "no_low_novelty_task_creation",
    "creative_spectator_safety",
]


def eligible_thought(agent: Any) -> Thought:
    return Thought.objects.create(
        agent=agent,
        type="reflection",
        content="Logs. [GOAL: collect oak_log]",
        content_hash="b" * 16,
        convert_eligible=True,
        eligibility_reason="eligible",
        grounding_passed=True,
        goal_key="collect:oak_log",
        source="agent",
        metadata={"extractedGoal": {"action": "collect", "target": "oak_log"}},
        created_at=timezone.now(),
    )


def test_planning_poll_once(agent: Any) -> None:
    eligible_thought(agent)
    out = StringIO()
    call_command("planning_poll", "--agent", "alpha", "--once", stdout=out)
    task = Task.objects.get()
    assert out.getvalue() == (
        f"fetched=1 converted=1 skipped=0 errors=0 acked=1 tasks=[{task.pk}]\n"
    )


def test_planning_poll_unknown_agent() -> None:
    with pytest.raises(CommandError, match="no agent named 'ghost'"):
        call_command("planning_poll", "--agent", "ghost", "--once")


def test_soak_passes_all_8_checks_and_writes_both_reports(
    agent: Any, tmp_path: Path
) -> None:
    out = StringIO()
    target = tmp_path / "soak.json"
    call_command(
        "soak", "--agent", "alpha", "--minutes", "12", "--out", str(target), stdout=out
    )
    report = json.loads(target.read_text(encoding="utf-8"))
    assert report["passed"] is True
    assert [c["name"] for c in report["checks"]] == CHECK_NAMES
    assert [c["passed"] for c in report["checks"]] == [True] * 8
    assert set(report["stallClasses"]) == {
        "unplannable",
        "blocked_reason",
        "executor_unavailable",
        "goalKey_missing",
        "convertEligible_gate",
        "stuck_pending",
    }
    # The executor outage makes one task stall; a new one recovers its goal.
    recovery = report["checks"][4]["observed"]
    assert recovery.startswith("stalled=[") and "recovered=[]" not in recovery
    assert report["fetched"] == report["acked"] > 0
    text = target.with_suffix(".log").read_text(encoding="utf-8")
    assert "Result: PASS (8/8 checks)" in text
    assert "PASS  8. creative_spectator_safety: driveTicks in creative window=0" in text
    assert text in out.getvalue()
    assert (
        Task.objects.filter(agent=agent)
        .exclude(status__in=["completed", "failed"])
        .count()
        == 0
    )


def test_soak_exits_1_when_a_check_fails(
    agent: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = soak_run

    def failing(**kwargs: Any) -> Any:
        report = real(**kwargs)
        checks = (
            *report.checks[:-1],
            SoakCheck(8, "creative_spectator_safety", False, "x"),
        )
        return SoakReport(
            **{
                name: getattr(report, name)
                for name in SoakReport.__dataclass_fields__
                if name != "checks"
            },
            checks=checks,
        )

    from stream.management.commands import soak

    monkeypatch.setattr(soak, "soak_run", failing)
    target = tmp_path / "fail.json"
    with pytest.raises(SystemExit) as exited:
        call_command(
            "soak", "--agent", "alpha", "--out", str(target), stdout=StringIO()
        )
    assert exited.value.code == 1
    assert json.loads(target.read_text(encoding="utf-8"))["passed"] is False


def test_soak_refuses_a_run_too_short_to_show_recovery(agent: Any) -> None:
    with pytest.raises(CommandError, match="--minutes must be at least 11"):
        call_command("soak", "--agent", "alpha", "--minutes", "5")


def test_planning_poll_task_calls_the_service(agent: Any) -> None:
    from stream.tasks.planning import planning_poll_all

    eligible_thought(agent)
    planning_poll_all.delay()
    assert Task.objects.filter(agent=agent).count() == 1
    assert Thought.objects.get().processed is True


def test_planning_poll_task_ignores_a_stale_agent_id(agent: Any) -> None:
    from stream.tasks.planning import planning_poll

    planning_poll.delay(agent.pk + 1000)
    agent.is_active = False
    agent.save()
    eligible_thought(agent)
    planning_poll.delay(agent.pk)
    assert Task.objects.count() == 0
