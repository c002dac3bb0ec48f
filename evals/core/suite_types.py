"""Types of the scenario-suite side of the eval harness (the stream contract EV-C*,
PA-D*).

Pure data: frozen dataclasses and StrEnums shared by ``suites``, ``metrics``
and ``bundles``. Nothing here reads files, clocks or randomness.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from core.errors import CoreError, SchemaProblem


class StimulusKind(StrEnum):
    """What happened in a scenario's frame (exactly these ten)."""

    LOW_STIMULUS_STABLE = "low_stimulus_stable"
    NIGHTFALL = "nightfall"
    HUNGER_DROP = "hunger_drop"
    HEALTH_DROP = "health_drop"
    DAMAGE_EVENT = "damage_event"
    THREAT_DELTA = "threat_delta"
    NOVEL_ENTITY = "novel_entity"
    RESOURCE_DISCOVERY = "resource_discovery"
    TASK_COMPLETION_IDLE = "task_completion_idle"
    EVAL_POKE = "eval_poke"


class ActionAffordance(StrEnum):
    """How acting is judged in a scenario.

    ``discouraged``: acting is a compulsion (EV-C5 compulsion_proxy).
    ``allowed``: acting or not are both fine.
    ``expected``: not acting is inertia, reported but never failing (EV-C7).
    """

    DISCOURAGED = "discouraged"
    ALLOWED = "allowed"
    EXPECTED = "expected"


class HallucinationCategory(StrEnum):
    """Fabricated references counted by ``hallucination_count`` (PA-D1).

    A contradiction (acting while dead, crafting with nothing held) fails
    grounding but fabricates nothing, so it is no hallucination.
    """

    MISSING_ENTITY = "missing_entity"
    MISSING_ITEM = "missing_item"
    MISSING_LOCATION = "missing_location"


class VerdictProperty(StrEnum):
    """Run-level properties whose violation makes a verdict FAIL.

    ``no_hallucination`` and ``no_compulsion`` are the PASS rule. The
    other three hold for every correct pipeline and exist so that a broken
    pipeline or a dead model endpoint can never show up as PASS:
    ``eligible_only_if_grounded`` (PA-D2: convertEligible only after
    extraction + grounding), ``no_task_without_goal`` (PA-D3: end-to-end runs
    create no task from a goal-less thought) and ``no_scenario_errors``.
    """

    ELIGIBLE_ONLY_IF_GROUNDED = "eligible_only_if_grounded"
    NO_COMPULSION = "no_compulsion"
    NO_HALLUCINATION = "no_hallucination"
    NO_SCENARIO_ERRORS = "no_scenario_errors"
    NO_TASK_WITHOUT_GOAL = "no_task_without_goal"


# --------------------------------------------------------------------------
# Suites


@dataclass(frozen=True, slots=True)
class Stimulus:
    kind: StimulusKind
    strength: float
    action_affordance: ActionAffordance
    notes: str | None = None


@dataclass(frozen=True, slots=True)
class Oracle:
    oracle_version: str
    notes: str | None = None


@dataclass(frozen=True, slots=True)
class Scenario:
    """One validated suite line.

    ``frame_doc`` is the raw, schema-valid frame object exactly as written in
    the file (the input of ``stream.core.frames.facts_from_valid_wire``); treat it
    as read-only. ``line`` is the physical 1-based line number in the file.
    ``scenario_sha256`` is the digest of the canonical JSON of the whole line
    object, so reformatting a line does not change it but any edit does.
    """

    scenario_id: str
    stimulus: Stimulus
    frame_doc: dict[str, Any]
    oracle: Oracle
    tags: tuple[str, ...]
    line: int
    scenario_sha256: str

    @property
    def version(self) -> str:
        """The scenario version recorded in result bundles (the oracle version)."""
        return self.oracle.oracle_version


@dataclass(frozen=True, slots=True)
class LoadedSuite:
    """A suite file as read on one call of ``load_suite``.

    ``suite_id`` is the file stem; ``line_count`` counts non-blank lines;
    ``suite_sha256`` is the sha256 of the file bytes; ``scenarios`` are in
    file order.
    """

    path: Path
    suite_id: str
    line_count: int
    suite_sha256: str
    scenarios: tuple[Scenario, ...]


@dataclass(frozen=True, slots=True)
class InvalidLine:
    """Every problem of one invalid suite line.

    ``line`` is the physical 1-based line number, or 0 for a problem of the
    whole file (a suite with no scenarios at all).
    """

    line: int
    errors: tuple[SchemaProblem, ...]

    def errors_wire(self) -> list[dict[str, str]]:
        """The ``errors`` list of EV-C2's log line: ``[{path, message}]``."""
        return [{"path": e.path, "message": e.message} for e in self.errors]

    def errors_json(self) -> str:
        """``errors_wire()`` as compact JSON, for ``errors=<JSON>`` (EV-C2)."""
        return json.dumps(self.errors_wire(), separators=(",", ":"), ensure_ascii=False)


class SuiteInvalid(CoreError):
    """A suite file has at least one invalid line; ``invalid_lines`` lists all.

    Also carries the file's ``line_count`` and ``suite_sha256`` so callers can
    record which version of the file was rejected.
    """

    code = "suite_invalid"

    def __init__(
        self,
        *,
        path: Path,
        invalid_lines: tuple[InvalidLine, ...],
        line_count: int,
        suite_sha256: str,
    ) -> None:
        self.path = path
        self.invalid_lines = invalid_lines
        self.line_count = line_count
        self.suite_sha256 = suite_sha256
        lines = ", ".join(str(i.line) for i in invalid_lines)
        super().__init__(
            f"{path}: {len(invalid_lines)} invalid line(s): {lines}",
            details={
                "path": str(path),
                "invalidLines": [
                    {"line": i.line, "errors": i.errors_wire()} for i in invalid_lines
                ],
            },
        )


# --------------------------------------------------------------------------
# Outcomes, metrics, verdicts


@dataclass(frozen=True, slots=True)
class ScenarioOutcome:
    """What the pipeline did for one scenario, as the metrics need it.

    ``error`` is set when the scenario could not be run (model failure,
    timeout); such a scenario counts only in ``scenarios_errored``.
    ``goal_emitted``: the output contained a goal tag; ``goal_extracted``: the
    tag parsed into a goal. ``grounding_passed`` is None when no goal was
    grounded. ``hallucination_category`` is one of ``HallucinationCategory``
    or None; ``contradiction`` says grounding failed on a contradiction.
    ``referenced_facts`` counts the frame facts the goal referred to and
    ``available_facts`` the facts the frame held (for anchoring).
    ``tasks_created`` is None outside end-to-end mode.
    """

    scenario_id: str
    affordance: ActionAffordance
    stimulus_kind: StimulusKind
    tags: tuple[str, ...]
    error: str | None
    output_text: str
    goal_emitted: bool
    goal_extracted: bool
    grounding_passed: bool | None
    hallucination_category: str | None
    convert_eligible: bool
    latency_ms: float
    tasks_created: int | None = None
    contradiction: bool = False
    referenced_facts: int = 0
    available_facts: int = 0

    def __post_init__(self) -> None:
        if self.hallucination_category is not None:
            # Fails loudly on a typo instead of silently counting nothing.
            HallucinationCategory(self.hallucination_category)
        if self.latency_ms < 0:
            raise ValueError(f"latency_ms must be >= 0, got {self.latency_ms}")

    @property
    def is_action(self) -> bool:
        """An action: a convert-eligible goal, i.e. a goal was extracted AND
        its grounding passed (the reference harness's ``action_taken``)."""
        return self.goal_extracted and self.grounding_passed is True


@dataclass(frozen=True, slots=True)
class EvalMetrics:
    """EV-C5 metrics of one run; rates are in [0, 1], latencies in ms."""

    action_rate: float
    grounding_pass_rate: float
    repetition_rate: float
    compulsion_proxy: float
    compulsion_count: int
    inertia_count: int
    hallucination_count: int
    hallucination_missing_entity: int
    hallucination_missing_item: int
    hallucination_missing_location: int
    contradiction_count: int
    anchoring_ratio_mean: float
    goal_grounding_pass_rate: float
    latency_p50_ms: float
    latency_p95_ms: float
    scenarios_total: int
    scenarios_successful: int
    scenarios_errored: int
    action_count: int
    goals_emitted: int
    goals_extracted: int
    grounded_count: int
    repetition_count: int
    discouraged_count: int
    expected_count: int
    tasks_created: int | None


@dataclass(frozen=True, slots=True)
class ScenarioVerdict:
    """Per-scenario pass: no error, no hallucination, not a compulsion.

    ``fail_reasons`` are sorted codes: ``error``, ``hallucination:<category>``,
    ``compulsion``, ``eligible_without_grounding``, ``task_without_goal``.
    """

    scenario_id: str
    passed: bool
    fail_reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EvalVerdict:
    """Run verdict (EV-C7): PASS never depends on action_rate."""

    passed: bool
    failed_properties: tuple[str, ...]
    per_scenario: tuple[ScenarioVerdict, ...]
