"""What a reviewer sees of the subject of a review item.

``subject_context`` reads the subject from the app that holds it and
answers one frozen ``SubjectContext``, with exactly one of its kind's views
filled: a scenario result with its frame, the model's output, the goal,
the grounding reasons and, where the run's benchmark has a baseline run or a
previous run holding the same case, that run's answer beside it; a thought
with its text, eligibility and agent; a gridworld episode with its map, the
path walked and its steps; a keepalive decision with its summary line and
fields. Reads only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evals.core.scenario_artifact import ScenarioArtifact, is_scenario_artifact
from evals.selectors.run_links import run_compare_links
from evals.selectors.runs import case_pair, runs_by_id
from gridworld.selectors import episode_with_batch
from gridworld.services.episodes import INTACT, stored_receipt
from prkeepalive.selectors import decision_with_pull
from reviews.services.subjects import (
    SubjectSummary,
    primary_key,
    scenario_run_of,
    subject_summary,
)
from stream.selectors import agent_list_visible
from stream.selectors_thoughts import thought_with_agent

# An episode's steps beyond this many are counted, not listed.
STEPS_SHOWN = 300


@dataclass(frozen=True, slots=True)
class ScenarioAnswer:
    """One run's answer to a scenario: what the model wrote and what the
    pipeline made of it."""

    run_id: str
    output: str
    thought: str
    goal: str
    goal_fail_reason: str
    grounding_passed: bool | None
    grounding_reason: str
    grounding_category: str
    violations: tuple[str, ...]
    eligible: bool
    eligible_reason: str
    hallucination: str
    passed: bool
    fail_reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ScenarioView:
    """A scenario result: the frame the model saw, the answer under review
    and (``other``) the baseline's or the previous run's answer to the same
    scenario, named by ``other_label``."""

    case_id: str
    stimulus_kind: str
    affordance: str
    frame: str
    answer: ScenarioAnswer
    other: ScenarioAnswer | None = None
    other_label: str = ""


@dataclass(frozen=True, slots=True)
class ThoughtView:
    agent_name: str
    type: str
    text: str
    eligible: bool | None
    eligible_reason: str
    goal_key: str
    grounding_passed: bool | None
    created_at: Any


@dataclass(frozen=True, slots=True)
class MapCell:
    """One square of an episode's map: its letter and how it is drawn
    (``wall``, ``hazard``, ``start``, ``goal``, ``path`` or ``floor``)."""

    char: str
    style: str


@dataclass(frozen=True, slots=True)
class EpisodeStep:
    step: int
    position: tuple[int, int]
    action: str
    goal: tuple[int, int]
    refused: int
    goal_reached: bool


@dataclass(frozen=True, slots=True)
class EpisodeView:
    """An episode: its figures, its map with the path walked and its steps
    (empty where the stored receipt cannot be trusted; ``receipt_status``
    says why)."""

    index: int
    seed: int
    success: bool
    steps_taken: int
    safety_violations: int
    receipt_status: str
    grid: tuple[tuple[MapCell, ...], ...] = ()
    steps: tuple[EpisodeStep, ...] = ()
    steps_hidden: int = 0


@dataclass(frozen=True, slots=True)
class DecisionView:
    line: str
    ok: bool
    fields: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class SubjectContext:
    """A subject as a reviewer sees it: its summary (``url`` blank where
    the viewer may not open the subject's own page) and its kind's view."""

    kind: str
    ref: str
    summary: SubjectSummary
    scenario: ScenarioView | None = None
    thought: ThoughtView | None = None
    episode: EpisodeView | None = None
    decision: DecisionView | None = None


def subject_context(kind: str, ref: str, viewer: Any) -> SubjectContext | None:
    """The subject ``kind``/``ref`` as ``viewer`` reviews it; None when it
    no longer exists (or the ref names nothing)."""
    summary = subject_summary(kind, ref)
    if summary is None:
        return None
    read = _VIEWS[kind]
    view = read(ref.strip(), viewer)
    if view is None:
        return None
    if kind == "thought" and not _agent_visible(viewer, summary.agent_id):
        summary = _without_url(summary)
    return SubjectContext(kind=kind, ref=ref.strip(), summary=summary, **view)


def _without_url(summary: SubjectSummary) -> SubjectSummary:
    return SubjectSummary(
        agent_id=summary.agent_id,
        run_id=summary.run_id,
        case_id=summary.case_id,
        title=summary.title,
    )


def _agent_visible(viewer: Any, agent_id: int | None) -> bool:
    if agent_id is None or viewer is None:
        return False
    return agent_list_visible(user=viewer).filter(pk=agent_id).exists()


def goal_text(goal: Mapping[str, Any] | None) -> str:
    """A goal as a person reads it: ``collect oak_log ×4``; ``""`` for none."""
    if not goal:
        return ""
    words = [str(goal.get("action") or ""), str(goal.get("target") or "")]
    amount = goal.get("amount")
    if amount not in (None, ""):
        words.append(f"×{amount}")
    return " ".join(word for word in words if word)


def scenario_answer(run_id: str, details: Any) -> ScenarioAnswer | None:
    """A case's answer read from its stored scenario artifact; None when the
    case holds details of another shape."""
    if not is_scenario_artifact(details):
        return None
    doc = ScenarioArtifact.from_wire(details)
    grounding = doc.grounding
    return ScenarioAnswer(
        run_id=run_id,
        output=doc.raw_output or "",
        thought=doc.thought or "",
        goal=goal_text(doc.extracted_goal),
        goal_fail_reason=doc.goal_fail_reason or "",
        grounding_passed=grounding.passed,
        grounding_reason=grounding.reason or "",
        grounding_category=grounding.category or "",
        violations=tuple(f"{v.kind}: {v.trigger}" for v in grounding.violations),
        eligible=doc.convert_eligible,
        eligible_reason=doc.convert_eligible_reason or "",
        hallucination=doc.hallucination or "",
        passed=doc.passed,
        fail_reasons=tuple(doc.fail_reasons),
    )


def _scenario(ref: str, viewer: Any) -> dict[str, Any] | None:
    found = scenario_run_of(ref)
    if found is None:
        return None
    run, case_id = found
    other_run, label = _other_run(run)
    other, case = case_pair(base=other_run, candidate=run, case_id=case_id)
    if case is None:
        return None
    answer = scenario_answer(run.run_id, case.details)
    if answer is None:
        # A case of a pack run: what it recorded, without a frame.
        answer = _plain_answer(run.run_id, case)
    doc = (
        ScenarioArtifact.from_wire(case.details)
        if is_scenario_artifact(case.details)
        else None
    )
    other_answer = (
        scenario_answer(other_run.run_id, other.details)
        if other is not None and other_run is not None
        else None
    )
    return {
        "scenario": ScenarioView(
            case_id=case_id,
            stimulus_kind=doc.scenario.stimulus_kind if doc else case.stimulus_kind,
            affordance=doc.scenario.action_affordance if doc else case.affordance,
            frame=doc.frame.text if doc and doc.frame else "",
            answer=answer,
            other=other_answer,
            other_label=label if other_answer is not None else "",
        )
    }


def _plain_answer(run_id: str, case: Any) -> ScenarioAnswer:
    return ScenarioAnswer(
        run_id=run_id,
        output="",
        thought="",
        goal="",
        goal_fail_reason="",
        grounding_passed=None,
        grounding_reason="",
        grounding_category="",
        violations=(),
        eligible=False,
        eligible_reason="",
        hallucination="",
        passed=bool(case.passed),
        fail_reasons=(case.error,) if case.error else (),
    )


def _other_run(run: Any) -> tuple[Any, str]:
    """The run whose answer stands beside ``run``'s: its benchmark's
    baseline run when one is stored and it is not ``run`` itself, else the
    run started just before it; ``(None, "")`` when there is neither."""
    links = run_compare_links(run)
    if links.baseline is not None and links.baseline_stored and not links.is_baseline:
        base = runs_by_id([links.baseline.entry.run_id]).get(
            links.baseline.entry.run_id
        )
        if base is not None:
            return base, "baseline run"
    if links.previous is not None:
        return links.previous, "previous run"
    return None, ""


def _thought(ref: str, viewer: Any) -> dict[str, Any] | None:
    pk = primary_key(ref)
    thought = thought_with_agent(pk) if pk is not None else None
    if thought is None:
        return None
    return {
        "thought": ThoughtView(
            agent_name=thought.agent.name,
            type=thought.type,
            text=thought.content,
            eligible=thought.convert_eligible,
            eligible_reason=thought.eligibility_reason,
            goal_key=thought.goal_key or "",
            grounding_passed=thought.grounding_passed,
            created_at=thought.created_at,
        )
    }


def _episode(ref: str, viewer: Any) -> dict[str, Any] | None:
    pk = primary_key(ref)
    episode = episode_with_batch(pk, with_receipt=True) if pk is not None else None
    if episode is None:
        return None
    stored = stored_receipt(episode)
    base = {
        "index": episode.index,
        "seed": episode.seed,
        "success": episode.success,
        "steps_taken": episode.steps,
        "safety_violations": episode.safety_violations,
        "receipt_status": stored.status,
    }
    receipt = stored.document if stored.status == INTACT else None
    if receipt is None:
        return {"episode": EpisodeView(**base)}
    steps = receipt.get("steps") or []
    return {
        "episode": EpisodeView(
            **base,
            grid=episode_grid(receipt),
            steps=tuple(_step(step) for step in steps[:STEPS_SHOWN]),
            steps_hidden=max(0, len(steps) - STEPS_SHOWN),
        )
    }


def episode_grid(receipt: Mapping[str, Any]) -> tuple[tuple[MapCell, ...], ...]:
    """The receipt's map with the start, the final goal and every square
    the agent stood on marked."""
    config = receipt["config"]
    rows = [row for row in str(config["map"]["text"]).split("\n") if row]
    walked = {tuple(step["position"]) for step in receipt.get("steps") or []}
    start = tuple(config["start"])
    steps = receipt.get("steps") or []
    goal = tuple(steps[-1]["goal"]) if steps else tuple(config["goal"])
    styles = {"#": "wall", "x": "hazard"}
    grid = []
    for y, row in enumerate(rows):
        cells = []
        for x, char in enumerate(row):
            if (x, y) == start:
                cells.append(MapCell("S", "start"))
            elif (x, y) == goal:
                cells.append(MapCell("G", "goal"))
            elif (x, y) in walked:
                cells.append(MapCell("*", "path"))
            else:
                shown = char if char in styles else "."
                cells.append(MapCell(shown, styles.get(char, "floor")))
        grid.append(tuple(cells))
    return tuple(grid)


def _pair(value: Sequence[Any]) -> tuple[int, int]:
    return int(value[0]), int(value[1])


def _step(step: Mapping[str, Any]) -> EpisodeStep:
    decision = step.get("decision") or []
    return EpisodeStep(
        step=int(step["step"]),
        position=_pair(step["position"]),
        action=str(step.get("action_taken") or ""),
        goal=_pair(step["goal"]),
        refused=sum(1 for proposal in decision if proposal.get("reasons")),
        goal_reached=bool(step.get("goal_reached")),
    )


def _decision(ref: str, viewer: Any) -> dict[str, Any] | None:
    pk = primary_key(ref)
    decision = decision_with_pull(pk) if pk is not None else None
    if decision is None:
        return None
    pull = decision.pull
    fields = (
        ("repository", decision.repository.full_name),
        ("pull request", f"#{pull.number} {pull.title}".strip() if pull else ""),
        ("lane", decision.lane),
        ("reason", decision.reason),
        ("detail", decision.detail),
        ("agent", decision.agent),
        ("head", decision.head_sha[:12]),
        ("rounds running / cap", f"{decision.active} / {decision.cap}"),
        ("trace", decision.trace),
        ("decided at", f"{decision.created_at:%Y-%m-%d %H:%M} UTC"),
    )
    return {
        "decision": DecisionView(
            line=decision.line,
            ok=decision.ok,
            fields=tuple((name, value) for name, value in fields if value),
        )
    }


_VIEWS = {
    "scenario_result": _scenario,
    "thought": _thought,
    "episode": _episode,
    "keepalive_decision": _decision,
}
