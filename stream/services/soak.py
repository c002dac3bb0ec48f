"""Soak (the agency contract §7): a simulated agent against the real planning services.

Drives percepts, drive ticks, scripted model thoughts, planning polls and a
simulated executor on a compressed clock, then reads the stored rows into
``stream.core.soak``'s 8 acceptance checks and the §7.3 stall classes.
Logs ``[Soak] finished ...``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Min
from django.utils import timezone

from core.times import epoch_ms, epoch_ms_or_none
from stream.core.drive_tick import DRIVE_TICK_SYSTEM
from stream.core.planning import PLAN_ROUTES, TaskStatus
from stream.core.planning_stalls import StallClass
from stream.core.soak import SoakCheck, SoakObservations, SoakTask, evaluate_soak
from stream.models import Agent, Task, TaskEvent
from stream.services.counters import counters_get, counters_reset
from stream.services.drive_tick import drive_tick_from_latest
from stream.services.planning import planning_poll_once
from stream.services.planning_task_executor import (
    task_claim,
    task_complete,
    task_fail,
    task_progress,
)
from stream.services.planning_task_store import (
    planning_state_get,
    task_source_convert_eligible,
    task_stall_class,
    task_to_wire,
)
from stream.services.thoughts import ThoughtInput, percept_record, thoughts_publish

logger = logging.getLogger(__name__)


SOAK_EXECUTOR = "soak-executor"
SOAK_MIN_MINUTES = 11
# The executor is away long enough for one task to pass the 5-minute stuck
# timeout (check 5); the last two minutes run in creative mode (check 8).
SOAK_OUTAGE_S = (170, 510)
SOAK_CREATIVE_TAIL_S = 120
# What the simulated model says, and when (seconds into the run): a grounded
# goal, the same text again (content dedup: low novelty, not eligible), no
# goal, a new grounded goal, an ungrounded one.
SOAK_MODEL_SCRIPT: tuple[tuple[int, str], ...] = (
    (60, "Two cows graze at the forest edge. [GOAL: find cow]\nINTENT: explore"),
    (180, "Two cows graze at the forest edge. [GOAL: find cow]\nINTENT: explore"),
    (300, "The forest is quiet; nothing needs doing.\nINTENT: none"),
    (420, "The cows wandered a little further. [GOAL: find cow]\nINTENT: explore"),
    (540, "Something may lurk in the dark. [GOAL: find zombie]"),
)


@dataclass(frozen=True, slots=True)
class SoakReport:
    """A soak run: the 8 checks, the stall classes seen, and what it did.

    ``stall_classes`` maps each §7.3 class to the tasks classified so at any
    sampled step; ``open_stall_classes`` to the open tasks so classified at
    the end.
    """

    agent: str
    minutes: int
    step_s: int
    started_at: datetime
    ended_at: datetime
    checks: tuple[SoakCheck, ...]
    stall_classes: dict[str, list[int]]
    open_stall_classes: dict[str, list[int]]
    counters: dict[str, int]
    tasks: tuple[dict[str, Any], ...]
    polls: int
    fetched: int
    acked: int

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)


def _soak_facts(inventory: Mapping[str, int]) -> dict[str, Any]:
    """A stable survival world (health 20, food 20, no hostiles, §7.1)."""
    held = [{"item": k, "count": n} for k, n in sorted(inventory.items()) if n > 0]
    return {
        "facts": {
            "bot": {
                "position": {"x": 10, "y": 64, "z": -3},
                "health": 20,
                "hunger": 20,
                "inventorySummary": held,
                "timeOfDay": "day",
            },
            "world": {
                "biome": "forest",
                "nearbyEntities": [{"kind": "cow", "count": 2, "distanceMin": 6}],
            },
        }
    }


def _soak_effect(task: Task, inventory: dict[str, int]) -> None:
    """What finishing a task does to the simulated inventory."""
    logs = inventory.get("oak_log", 0)
    if task.action in ("collect", "gather", "mine"):
        inventory[task.target] = inventory.get(task.target, 0) + (task.amount or 1)
    elif task.action == "craft":
        inventory[task.target] = inventory.get(task.target, 0) + (task.amount or 1)
        inventory["oak_log"] = max(0, logs - 1)
    elif task.action == "build":
        inventory["oak_log"] = max(0, logs - 4)


def _soak_execute(
    agent: Agent, current: int | None, inventory: dict[str, int], now: datetime
) -> int | None:
    """One step of the simulated executor: claim, or move the claimed task
    half-way, or finish it (an unplannable one fails)."""
    if current is None:
        claimed = task_claim(agent=agent, executor=SOAK_EXECUTOR, now=now)
        return None if claimed is None else claimed.pk
    task = Task.objects.get(pk=current)
    if task.action not in PLAN_ROUTES:
        task_fail(
            agent=agent,
            task_id=current,
            executor=SOAK_EXECUTOR,
            reason="unplannable",
            now=now,
        )
        return None
    progress = min(1.0, task.progress + 0.5)
    if progress >= 1.0:
        done = task_complete(
            agent=agent, task_id=current, executor=SOAK_EXECUTOR, now=now
        )
        _soak_effect(done, inventory)
        return None
    task_progress(
        agent=agent,
        task_id=current,
        executor=SOAK_EXECUTOR,
        progress=progress,
        now=now,
    )
    return current


def _sample_stalls(agent: Agent, now: datetime, into: dict[str, set[int]]) -> None:
    seen = planning_state_get(agent=agent).executor_seen_at
    open_tasks = Task.objects.filter(
        agent=agent, status__in=[TaskStatus.PENDING, TaskStatus.ACTIVE]
    ).select_related("thought")
    for task in open_tasks:
        stall = task_stall_class(task, now=now, executor_seen_at=seen)
        if stall is not None:
            into[stall.value].add(task.pk)


def soak_run(
    *,
    agent: Agent,
    minutes: int = 12,
    step_s: int = 10,
    start: datetime | None = None,
    model_emits_intent: bool | None = None,
) -> SoakReport:
    """Run a simulated agent against the real services on a compressed clock.

    Every ``step_s`` simulated seconds: a percept of a stable survival world,
    a drive-tick evaluation (drive ticks always run here, whatever
    ``DRIVE_TICK_ENABLED`` says), the scripted model thoughts that are due
    (through the real pipeline), one planning poll, one executor step
    (away during ``SOAK_OUTAGE_S``). The last ``SOAK_CREATIVE_TAIL_S`` run in
    creative mode. The clock runs from ``start`` (default: ``minutes`` ago,
    so every row lies in the past) and counters are reset at ``start``; use
    a dedicated agent. Checks are computed from the stored rows.
    """
    if minutes < SOAK_MIN_MINUTES:
        raise ValueError(
            f"a soak needs at least {SOAK_MIN_MINUTES} minutes to show the "
            "stuck-timeout recovery and the creative window"
        )
    total_s = minutes * 60
    start = (start or timezone.now() - timedelta(seconds=total_s)).replace(
        microsecond=0
    )
    end = start + timedelta(seconds=total_s)
    run_id = f"soak-{start:%Y%m%dT%H%M%S}"
    counters_reset(agent=agent, now=start)
    inventory: dict[str, int] = {}
    script = list(SOAK_MODEL_SCRIPT)
    samples: dict[str, set[int]] = {c.value: set() for c in StallClass}
    creative_from = total_s - SOAK_CREATIVE_TAIL_S
    creative_before: int | None = None
    refusals = polls = fetched = acked = 0
    current: int | None = None
    for offset in range(0, total_s, step_s):
        now = start + timedelta(seconds=offset)
        creative = offset >= creative_from
        percept_record(agent=agent, document=_soak_facts(inventory), now=now)
        if creative and creative_before is None:
            creative_before = counters_get(agent=agent).drive_ticks
        tick = drive_tick_from_latest(
            agent=agent, game_mode="creative" if creative else "survival", now=now
        )
        refusals += int(creative and tick.due and not tick.fired)
        while script and script[0][0] <= offset:
            _, text = script.pop(0)
            item = ThoughtInput(content=text, source="soak-model", eval_run_id=run_id)
            thoughts_publish(agent=agent, items=[item], now=now)
        poll = planning_poll_once(agent=agent, processed_by="soak-planner", now=now)
        polls, fetched, acked = polls + 1, fetched + poll.fetched, acked + poll.acked
        if not SOAK_OUTAGE_S[0] <= offset < SOAK_OUTAGE_S[1]:
            current = _soak_execute(agent, current, inventory, now)
        _sample_stalls(agent, now, samples)

    counters = counters_get(agent=agent)
    rows = list(
        Task.objects.filter(agent=agent, created_at__gte=start, created_at__lt=end)
        .select_related("agent", "thought")
        .order_by("created_at", "pk")
    )
    first_progress = dict(
        TaskEvent.objects.filter(task__in=rows, progress__gt=0)
        .values("task")
        .annotate(first=Min("created_at"))
        .values_list("task", "first")
    )
    observed = tuple(
        SoakTask(
            task_id=t.pk,
            goal_key=t.goal_key,
            is_drive_tick=t.origin_name == DRIVE_TICK_SYSTEM,
            status=TaskStatus(t.status),
            created_ms=epoch_ms(t.created_at),
            claimed_ms=epoch_ms_or_none(t.claimed_at),
            first_progress_ms=epoch_ms_or_none(first_progress.get(t.pk)),
            finished_ms=epoch_ms_or_none(t.finished_at),
            source_convert_eligible=task_source_convert_eligible(t),
        )
        for t in rows
    )
    checks = evaluate_soak(
        SoakObservations(
            end_ms=epoch_ms(end),
            tasks=observed,
            drive_ticks=counters.drive_ticks,
            goal_tags=counters.goal_tags,
            intent_extractions=counters.intent_extractions,
            model_emits_intent=model_emits_intent,
            creative_drive_ticks=None
            if creative_before is None
            else counters.drive_ticks - creative_before,
            creative_due_refusals=refusals,
        )
    )
    seen = planning_state_get(agent=agent).executor_seen_at
    at_end: dict[str, list[int]] = {c.value: [] for c in StallClass}
    for task in rows:
        stall = task_stall_class(task, now=end, executor_seen_at=seen)
        if stall is not None:
            at_end[stall.value].append(task.pk)
    report = SoakReport(
        agent=agent.name,
        minutes=minutes,
        step_s=step_s,
        started_at=start,
        ended_at=end,
        checks=checks,
        stall_classes={k: sorted(v) for k, v in samples.items()},
        open_stall_classes=at_end,
        counters={
            "llmCalls": counters.llm_calls,
            "goalTags": counters.goal_tags,
            "driveTicks": counters.drive_ticks,
            "intentExtractions": counters.intent_extractions,
            "contentSuppressions": counters.content_suppressions,
        },
        tasks=tuple(task_to_wire(t, now=end, executor_seen_at=seen) for t in rows),
        polls=polls,
        fetched=fetched,
        acked=acked,
    )
    logger.info(
        "[Soak] finished agent=%s minutes=%s passed=%s checks=%s/%s",
        agent.name,
        minutes,
        str(report.passed).lower(),
        sum(c.passed for c in checks),
        len(checks),
        extra={"agent": agent.name},
    )
    return report


def soak_report_to_wire(report: SoakReport) -> dict[str, Any]:
    """The JSON report (camelCase keys)."""
    return {
        "agent": report.agent,
        "minutes": report.minutes,
        "stepS": report.step_s,
        "startedAt": report.started_at.isoformat(),
        "endedAt": report.ended_at.isoformat(),
        "passed": report.passed,
        "checks": [
            {
                "id": c.check_id,
                "name": c.name,
                "passed": c.passed,
                "observed": c.observed,
            }
            for c in report.checks
        ],
        "stallClasses": report.stall_classes,
        "openStallClassesAtEnd": report.open_stall_classes,
        "counters": report.counters,
        "polls": report.polls,
        "fetched": report.fetched,
        "acked": report.acked,
        "tasks": list(report.tasks),
    }


def soak_report_text(report: SoakReport) -> str:
    """The human-readable report: one line per check, then the stall classes."""
    lines = [
        f"Soak report: agent {report.agent}, {report.minutes} simulated minutes "
        f"(step {report.step_s} s), {report.started_at.isoformat()} .. "
        f"{report.ended_at.isoformat()}",
        f"polls={report.polls} fetched={report.fetched} acked={report.acked} "
        f"tasks={len(report.tasks)} "
        + " ".join(f"{k}={v}" for k, v in report.counters.items()),
        "",
        "Acceptance checks (the agency contract §7.2):",
    ]
    for check in report.checks:
        verdict = "PASS" if check.passed else "FAIL"
        lines.append(f"  {verdict}  {check.check_id}. {check.name}: {check.observed}")
    lines += [
        "",
        "Stall classes (the agency contract §7.3): seen during the run / open at end",
    ]
    for name, seen in report.stall_classes.items():
        lines.append(
            f"  {name}: {len(seen)} {seen} / {report.open_stall_classes.get(name, [])}"
        )
    passed = sum(c.passed for c in report.checks)
    verdict = "PASS" if report.passed else "FAIL"
    lines += ["", f"Result: {verdict} ({passed}/{len(report.checks)} checks)"]
    return "\n".join(lines) + "\n"
