"""The scenario artifact (EV-C4, ``scenarios/<SCENARIO_ID>.json``) as one
typed record.

``ScenarioArtifact`` is the only definition of the document: the harness
builds it once per scenario (``evals.core.outcomes.scenario_artifact_of``),
``to_wire`` gives the camelCase document written to the bundle and stored
as the case's details, and ``from_wire`` reads a stored document back for
metrics, the verdict, events and the pages. The bytes on disk and in API
answers are the contract: ``to_wire(from_wire(doc)) == doc`` for every
document ``to_wire`` wrote.

``from_wire`` also reads documents that an older harness stored without the
keys added after EV-C4's list (``claims``, ``availableFacts``, ...): a
missing key reads as its field's default, as the readers before this type
did.

Wire keys: ``schemaVersion``, ``runId``, ``suiteId``, ``profile``, ``mode``;
``scenario`` {``id``, ``version``, ``sha256``, ``stimulusKind``,
``actionAffordance``}; ``frame`` {``text``, ``facts``, ``memories``,
``deltas``}; ``model`` (``ModelConfig.to_wire``); ``rawOutput``,
``thought``; ``extractedGoal``, ``goalFailReason``; ``grounding`` {``pass``,
``reason``, ``category``, ``referencedFacts``, ``violations`` [{``type``,
``trigger``}]}; ``convertEligible``, ``convertEligibleReason``;
``tasksCreated``; ``startedAt``, ``completedAt``, ``latencyMs``; ``error``;
``pass``, ``failReasons`` (sorted); beyond EV-C4's list: ``availableFacts``,
``hallucination``, ``suiteLine``, ``tags``, ``routable``,
``sanitizerFlags``, ``planning`` (end-to-end only, else null) and
``claims`` (null when the model never answered).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """Which model produced the outputs, and how it was sampled.

    ``model_id`` names the model (e.g. ``scripted:idle-v1.script.jsonl``,
    ``baseline``, ``openai:qwen2.5-7b``); ``adapter`` is scripted, baseline
    or openai; ``sampler_params`` are the sampler's resolved settings
    (temperature, top_p, max_tokens) when known.
    """

    model_id: str
    adapter: str
    sampler: str
    seed: int
    sampler_params: Mapping[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.model_id,
            "adapter": self.adapter,
            "sampler": self.sampler,
            "samplerParams": (
                dict(self.sampler_params) if self.sampler_params is not None else None
            ),
            "seed": self.seed,
        }

    @classmethod
    def from_wire(cls, doc: Mapping[str, Any]) -> ModelConfig:
        return cls(
            model_id=doc["id"],
            adapter=doc["adapter"],
            sampler=doc["sampler"],
            seed=doc["seed"],
            sampler_params=doc.get("samplerParams"),
        )


@dataclass(frozen=True, slots=True)
class ScenarioRef:
    """Which scenario of the suite, at which oracle version."""

    scenario_id: str
    version: str
    sha256: str
    stimulus_kind: str
    action_affordance: str


@dataclass(frozen=True, slots=True)
class FrameRecord:
    """The frame exactly as rendered for the model, and what it held."""

    text: str
    facts: int
    memories: int
    deltas: int


@dataclass(frozen=True, slots=True)
class Violation:
    """One grounding violation: its category and the word or fact behind it."""

    kind: str
    trigger: str


@dataclass(frozen=True, slots=True)
class GroundingRecord:
    """The goal's grounding; ``passed`` None when there was no goal."""

    passed: bool | None
    reason: str | None
    category: str | None
    referenced_facts: tuple[str, ...] = ()
    violations: tuple[Violation, ...] = ()


@dataclass(frozen=True, slots=True)
class PlanningRecord:
    """What planning did with the scenario's thought (end-to-end runs)."""

    agent: str
    thought_id: int | None
    convert_eligible: bool
    eligibility_reason: str
    fetched: int
    converted: int
    skipped: int
    errors: int
    acked: int
    task_ids: tuple[int, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "thoughtId": self.thought_id,
            "convertEligible": self.convert_eligible,
            "eligibilityReason": self.eligibility_reason,
            "fetched": self.fetched,
            "converted": self.converted,
            "skipped": self.skipped,
            "errors": self.errors,
            "acked": self.acked,
            "taskIds": list(self.task_ids),
        }

    @classmethod
    def from_wire(cls, doc: Mapping[str, Any]) -> PlanningRecord:
        return cls(
            agent=doc.get("agent", ""),
            thought_id=doc.get("thoughtId"),
            convert_eligible=bool(doc.get("convertEligible")),
            eligibility_reason=doc.get("eligibilityReason", ""),
            fetched=int(doc.get("fetched") or 0),
            converted=int(doc.get("converted") or 0),
            skipped=int(doc.get("skipped") or 0),
            errors=int(doc.get("errors") or 0),
            acked=int(doc.get("acked") or 0),
            task_ids=tuple(doc.get("taskIds") or ()),
        )


@dataclass(frozen=True, slots=True)
class ScenarioArtifact:
    """One scenario's result document; see the module docstring for its
    wire keys. ``extracted_goal`` and ``claims`` are the stream core's own
    wire shapes (``goal_to_wire``, ``claims_to_wire``), kept as given."""

    run_id: str
    suite_id: str
    profile: str
    mode: str
    scenario: ScenarioRef
    frame: FrameRecord | None
    model: ModelConfig | None
    raw_output: str | None
    thought: str | None
    extracted_goal: Mapping[str, Any] | None
    goal_fail_reason: str | None
    grounding: GroundingRecord
    convert_eligible: bool
    convert_eligible_reason: str | None
    tasks_created: int | None
    started_at: str | None
    completed_at: str | None
    latency_ms: float
    error: str | None
    passed: bool
    fail_reasons: tuple[str, ...]
    available_facts: int = 0
    hallucination: str | None = None
    suite_line: int = 0
    tags: tuple[str, ...] = ()
    routable: bool = False
    sanitizer_flags: tuple[str, ...] = ()
    planning: PlanningRecord | None = None
    claims: Mapping[str, Any] | None = None
    schema_version: int = SCHEMA_VERSION

    def to_wire(self) -> dict[str, Any]:
        """The document as the bundle's file and the case's details hold it."""
        scenario, frame, grounding = self.scenario, self.frame, self.grounding
        return {
            "schemaVersion": self.schema_version,
            "runId": self.run_id,
            "suiteId": self.suite_id,
            "profile": self.profile,
            "mode": self.mode,
            "scenario": {
                "id": scenario.scenario_id,
                "version": scenario.version,
                "sha256": scenario.sha256,
                "stimulusKind": scenario.stimulus_kind,
                "actionAffordance": scenario.action_affordance,
            },
            "frame": None
            if frame is None
            else {
                "text": frame.text,
                "facts": frame.facts,
                "memories": frame.memories,
                "deltas": frame.deltas,
            },
            "model": self.model.to_wire() if self.model is not None else None,
            "rawOutput": self.raw_output,
            "thought": self.thought,
            "extractedGoal": _copy(self.extracted_goal),
            "goalFailReason": self.goal_fail_reason,
            "grounding": {
                "pass": grounding.passed,
                "reason": grounding.reason,
                "category": grounding.category,
                "referencedFacts": list(grounding.referenced_facts),
                "violations": [
                    {"type": v.kind, "trigger": v.trigger} for v in grounding.violations
                ],
            },
            "convertEligible": self.convert_eligible,
            "convertEligibleReason": self.convert_eligible_reason,
            "tasksCreated": self.tasks_created,
            "startedAt": self.started_at,
            "completedAt": self.completed_at,
            "latencyMs": self.latency_ms,
            "error": self.error,
            "pass": self.passed,
            "failReasons": sorted(self.fail_reasons),
            "availableFacts": self.available_facts,
            "hallucination": self.hallucination,
            "suiteLine": self.suite_line,
            "tags": list(self.tags),
            "routable": self.routable,
            "sanitizerFlags": list(self.sanitizer_flags),
            "planning": self.planning.to_wire() if self.planning else None,
            "claims": _copy(self.claims),
        }

    @classmethod
    def from_wire(cls, doc: Mapping[str, Any]) -> ScenarioArtifact:
        """The record a stored document stands for (``is_scenario_artifact``
        documents; a key an older harness did not write reads as its
        default)."""
        scenario = doc.get("scenario") or {}
        frame = doc.get("frame")
        model = doc.get("model")
        grounding = doc.get("grounding") or {}
        planning = doc.get("planning")
        return cls(
            schema_version=doc.get("schemaVersion", SCHEMA_VERSION),
            run_id=doc.get("runId", ""),
            suite_id=doc.get("suiteId", ""),
            profile=doc.get("profile", ""),
            mode=doc.get("mode", ""),
            scenario=ScenarioRef(
                scenario_id=scenario.get("id", ""),
                version=scenario.get("version", ""),
                sha256=scenario.get("sha256", ""),
                stimulus_kind=scenario.get("stimulusKind", ""),
                action_affordance=scenario.get("actionAffordance", ""),
            ),
            frame=None
            if frame is None
            else FrameRecord(
                text=frame.get("text", ""),
                facts=frame.get("facts", 0),
                memories=frame.get("memories", 0),
                deltas=frame.get("deltas", 0),
            ),
            model=ModelConfig.from_wire(model) if model is not None else None,
            raw_output=doc.get("rawOutput"),
            thought=doc.get("thought"),
            extracted_goal=doc.get("extractedGoal"),
            goal_fail_reason=doc.get("goalFailReason"),
            grounding=GroundingRecord(
                passed=grounding.get("pass"),
                reason=grounding.get("reason"),
                category=grounding.get("category"),
                referenced_facts=tuple(grounding.get("referencedFacts") or ()),
                violations=tuple(
                    Violation(kind=v["type"], trigger=v["trigger"])
                    for v in grounding.get("violations") or ()
                ),
            ),
            convert_eligible=bool(doc.get("convertEligible")),
            convert_eligible_reason=doc.get("convertEligibleReason"),
            tasks_created=doc.get("tasksCreated"),
            started_at=doc.get("startedAt"),
            completed_at=doc.get("completedAt"),
            latency_ms=doc.get("latencyMs") or 0.0,
            error=doc.get("error"),
            passed=bool(doc.get("pass")),
            fail_reasons=tuple(doc.get("failReasons") or ()),
            available_facts=int(doc.get("availableFacts") or 0),
            hallucination=doc.get("hallucination"),
            suite_line=doc.get("suiteLine", 0),
            tags=tuple(doc.get("tags") or ()),
            routable=bool(doc.get("routable")),
            sanitizer_flags=tuple(doc.get("sanitizerFlags") or ()),
            planning=PlanningRecord.from_wire(planning) if planning else None,
            claims=doc.get("claims"),
        )


def is_scenario_artifact(doc: Mapping[str, Any] | None) -> bool:
    """Whether a case's details are a scenario artifact (a pack case or a
    gridworld episode has details of its own shape)."""
    return doc is not None and "scenario" in doc


def _copy(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return dict(value) if value is not None else None
