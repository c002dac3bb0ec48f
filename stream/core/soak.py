"""Soak acceptance: the 8 checks of the agency contract §7.2 over a run's history.

Decides, without I/O, whether a soak run passed, from the tasks it left
(ms timestamps) and the counters it read; the soak service drives the run
and records the history. Invariants:

- Check 4 (idempotency) applies ``stream.core.planning``'s suppression rule
  at the moment each newer task was created: a duplicate is a task created
  while an older one with its goalKey was open and not stuck.
- Check 5 passes when no task stalled, or when a stalled task was followed by
  a new task with its goalKey; check 8 passes (and says so) when no creative
  window was run.
"""

from __future__ import annotations

from dataclasses import dataclass

from stream.core.drive_tick import DRIVE_TICK_INTERVAL_MS
from stream.core.planning import STUCK_PENDING_MS, TERMINAL_STATUSES, TaskStatus


@dataclass(frozen=True, slots=True)
class SoakTask:
    """A task's history as the soak checks read it (ms timestamps)."""

    task_id: int
    goal_key: str | None
    is_drive_tick: bool
    status: TaskStatus
    created_ms: int
    claimed_ms: int | None
    first_progress_ms: int | None
    finished_ms: int | None
    source_convert_eligible: bool | None


@dataclass(frozen=True, slots=True)
class SoakObservations:
    """Everything a soak observed; ``creative_*`` describe the creative
    window (``None`` when none was run)."""

    end_ms: int
    tasks: tuple[SoakTask, ...]
    drive_ticks: int
    goal_tags: int
    intent_extractions: int
    model_emits_intent: bool | None
    creative_drive_ticks: int | None
    creative_due_refusals: int


@dataclass(frozen=True, slots=True)
class SoakCheck:
    check_id: int
    name: str
    passed: bool
    observed: str


def _stuck_at(task: SoakTask) -> int:
    return task.created_ms + STUCK_PENDING_MS


def _stalled(task: SoakTask, end_ms: int) -> bool:
    """Still open with 0 progress when it turned 5 minutes old."""
    moment = _stuck_at(task)
    if moment > end_ms:
        return False
    moved = [t for t in (task.first_progress_ms, task.finished_ms) if t is not None]
    return all(t > moment for t in moved)


def _open_at(task: SoakTask, moment: int) -> bool:
    return task.created_ms <= moment and (
        task.finished_ms is None or task.finished_ms > moment
    )


def _suppressing_at(older: SoakTask, moment: int) -> bool:
    """Whether ``older`` suppressed its goalKey at ``moment`` (§3.2's rule)."""
    if not _open_at(older, moment):
        return False
    young = moment - older.created_ms < STUCK_PENDING_MS
    progress = older.first_progress_ms
    return young or (progress is not None and progress <= moment)


def evaluate_soak(obs: SoakObservations) -> tuple[SoakCheck, ...]:
    """The 8 acceptance checks of §7.2, from the run's recorded history.

    Check 5 passes when no task stalled, or when at least one stalled task was
    followed by a new task with its goalKey created after it stalled. Check 8
    passes trivially (and says so) when no creative window was run.
    """
    tasks = sorted(obs.tasks, key=lambda t: (t.created_ms, t.task_id))
    drive = [t for t in tasks if t.is_drive_tick]
    gaps = [b.created_ms - a.created_ms for a, b in zip(drive, drive[1:], strict=False)]
    min_gap = min(gaps, default=None)
    cadence_ok = (
        obs.drive_ticks > 0
        and obs.goal_tags > 0
        and (min_gap is None or min_gap >= DRIVE_TICK_INTERVAL_MS)
    )
    claimed = [t for t in drive if t.claimed_ms is not None]
    closed = [t for t in tasks if t.status in TERMINAL_STATUSES]

    duplicates: list[tuple[int, int]] = []
    recovered: list[tuple[int, int]] = []
    for index, newer in enumerate(tasks):
        if newer.goal_key is None:
            continue
        for older in tasks[:index]:
            if older.goal_key != newer.goal_key:
                continue
            if _suppressing_at(older, newer.created_ms):
                duplicates.append((older.task_id, newer.task_id))
            elif _open_at(older, newer.created_ms):
                # Open but not suppressing: it was stuck when the new one came.
                recovered.append((older.task_id, newer.task_id))
    stalled = [t for t in tasks if _stalled(t, obs.end_ms)]
    recovered_ids = sorted({pair[0] for pair in recovered})
    ineligible = [t.task_id for t in tasks if t.source_convert_eligible is False]

    if obs.intent_extractions > 0:
        compliance_ok, compliance = True, f"intentExtractions={obs.intent_extractions}"
    elif obs.model_emits_intent is False:
        compliance_ok, compliance = True, "intentExtractions=0; model emits no INTENT"
    else:
        compliance_ok, compliance = False, "intentExtractions=0, not explained"

    if obs.creative_drive_ticks is None:
        creative_ok, creative = True, "not tested (no creative window)"
    else:
        creative_ok = obs.creative_drive_ticks == 0
        creative = (
            f"driveTicks in creative window={obs.creative_drive_ticks}; "
            f"due ticks refused={obs.creative_due_refusals}"
        )

    gap_text = "n/a" if min_gap is None else f"{min_gap // 1000}s"
    return (
        SoakCheck(
            1,
            "task_creation_cadence",
            cadence_ok,
            f"driveTicks={obs.drive_ticks} goalTags={obs.goal_tags} "
            f"driveTickTasks={len(drive)} minGap={gap_text}",
        ),
        SoakCheck(
            2,
            "executor_claims",
            bool(claimed),
            f"driveTickTasksClaimed={len(claimed)}/{len(drive)}",
        ),
        SoakCheck(
            3,
            "progress_closure",
            bool(closed),
            f"terminal={len(closed)}/{len(tasks)}",
        ),
        SoakCheck(
            4,
            "idempotency_under_repetition",
            not duplicates,
            f"duplicatePairs={duplicates}",
        ),
        SoakCheck(
            5,
            "stuck_timeout_recovery",
            not stalled or bool(recovered_ids),
            f"stalled={[t.task_id for t in stalled]} recovered={recovered_ids}",
        ),
        SoakCheck(6, "compliance_signal", compliance_ok, compliance),
        SoakCheck(
            7,
            "no_low_novelty_task_creation",
            not ineligible,
            f"tasksFromIneligibleThoughts={ineligible}",
        ),
        SoakCheck(8, "creative_spectator_safety", creative_ok, creative),
    )
