"""Value types of the thinking pipeline: frame inputs, results and their enums.

Everything here is an immutable value (frozen dataclasses with slots, tuples for
collections, ``StrEnum`` for closed vocabularies), so results can be cached,
compared and hashed, and no stage can mutate what an earlier stage produced.

Optional wire fields are ``None`` when the wire document leaves them out, so
``facts_to_wire(facts_from_wire(doc)) == doc`` holds for every valid document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class TimeOfDay(StrEnum):
    DAWN = "dawn"
    DAY = "day"
    SUNSET = "sunset"
    NIGHT = "night"
    UNKNOWN = "unknown"


class ThreatLevel(StrEnum):
    NONE = "none"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class DeltaType(StrEnum):
    THREAT_DELTA = "threat_delta"
    DAMAGE_TAKEN = "damage_taken"
    HUNGER_CHANGE = "hunger_change"
    HEALTH_CHANGE = "health_change"
    NEW_ENTITY = "new_entity"
    LOST_ENTITY = "lost_entity"
    TIME_ADVANCED = "time_advanced"
    ITEM_GAINED = "item_gained"
    ITEM_LOST = "item_lost"
    OTHER = "other"


class PromptProfile(StrEnum):
    """Frame composition budgets; a profile never changes policies (EV-C3)."""

    MINIMAL = "minimal"
    BALANCED = "balanced"
    RICH = "rich"


class IntentParse(StrEnum):
    """How an INTENT token was found; a measurement, never a feature gate."""

    FINAL_LINE = "final_line"
    INLINE_NONCOMPLIANT = "inline_noncompliant"


class GoalFailReason(StrEnum):
    NO_TAG = "no_tag"
    TAG_TOO_LONG = "tag_too_long"
    UNKNOWN_ACTION = "unknown_action"
    NO_TARGET = "no_target"
    EMPTY_INNER = "empty_inner"


class GroundingCategory(StrEnum):
    """Hallucination categories of PA-D1 (plus contradictions)."""

    MISSING_ENTITY = "missing_entity"
    MISSING_ITEM = "missing_item"
    MISSING_LOCATION = "missing_location"
    CONTRADICTION = "contradiction"


# --- situation frame inputs -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Position:
    x: float
    y: float
    z: float


@dataclass(frozen=True, slots=True)
class InventoryItem:
    item: str
    count: int


@dataclass(frozen=True, slots=True)
class BotState:
    position: Position
    health: float
    hunger: float
    inventory: tuple[InventoryItem, ...]
    time_of_day: TimeOfDay
    threat_level: ThreatLevel | None = None


@dataclass(frozen=True, slots=True)
class NearbyEntity:
    kind: str
    count: int
    distance_min: float
    hostile: bool | None = None


@dataclass(frozen=True, slots=True)
class WorldState:
    biome: str
    nearby_entities: tuple[NearbyEntity, ...]
    dimension: str | None = None
    weather: str | None = None


@dataclass(frozen=True, slots=True)
class Delta:
    """A recent change; ``value`` is any JSON value (as ``json.loads`` gives)."""

    type: DeltaType
    value: object


@dataclass(frozen=True, slots=True)
class EpisodicMemory:
    timestamp_ms: int
    text: str


@dataclass(frozen=True, slots=True)
class SemanticMemory:
    key: str
    text: str


@dataclass(frozen=True, slots=True)
class Memory:
    episodic: tuple[EpisodicMemory, ...] | None = None
    semantic: tuple[SemanticMemory, ...] | None = None


@dataclass(frozen=True, slots=True)
class SituationFacts:
    """What the agent knows right now; never contains a goal (I-1)."""

    bot: BotState
    world: WorldState
    deltas: tuple[Delta, ...] | None = None
    memory: Memory | None = None


@dataclass(frozen=True, slots=True)
class RenderedFrame:
    """The text the model sees, with the counts the seed logs (KA-A1, EV-C3).

    ``digest`` is the sha256 hex of ``text``; ``factual_only`` is always true
    because rendering only ever writes facts.
    """

    text: str
    profile: PromptProfile
    fact_count: int
    memory_count: int
    delta_count: int
    digest: str
    factual_only: bool = True


# --- model output and its evaluation ----------------------------------------


@dataclass(frozen=True, slots=True)
class Goal:
    """An explicit goal the model emitted with a ``[GOAL: ...]`` tag.

    ``action`` is canonical (one of ``CANONICAL_ACTIONS``); ``target`` holds the
    target words, lowercased, reduced to ``[a-z_]`` and joined by one space.
    """

    action: str
    target: str
    target_id: str | None
    amount: int | None
    raw: str


@dataclass(frozen=True, slots=True)
class SanitizeResult:
    """Sanitized thought text plus what the sanitizer extracted from it.

    ``goal_fail_reason`` is ``None`` exactly when ``goal`` is set; ``goal_key``
    is ``None`` whenever the canonical key would be empty (the agency contract §1.3).
    ``flags`` name the stages that changed the text, in pipeline order.
    ``raw_goal_tag`` is the first tag's raw text when it failed (for
    debugging), else ``None``; ``had_code_content`` says whether the raw
    output read as code; ``is_usable`` whether the cleaned text is worth
    keeping (not empty, short, code or filler).
    """

    text: str
    goal: Goal | None
    goal_fail_reason: GoalFailReason | None
    goal_tag_count: int
    goal_key: str | None
    intent: str | None
    intent_parse: IntentParse | None
    flags: tuple[str, ...]
    raw_goal_tag: str | None = None
    had_code_content: bool = False
    is_usable: bool = True


@dataclass(frozen=True, slots=True)
class GroundingResult:
    """Whether a goal refers only to what the frame holds (PA-D1).

    ``reason`` is ``grounded`` on a pass, ``no_goal`` when there was nothing to
    ground, otherwise the failing ``category`` value; ``missing`` lists the
    target terms (or the contradicted facts) that failed, in target order;
    ``referenced`` the frame facts the target referred to (``inventory:stone``,
    ``entity:zombie``, ``biome:plains``), in target order.
    """

    passed: bool
    reason: str
    category: GroundingCategory | None
    missing: tuple[str, ...]
    referenced: tuple[str, ...] = ()
    # Every violation in order: (category, the word or fact that caused it).
    violations: tuple[tuple[GroundingCategory, str], ...] = ()


@dataclass(frozen=True, slots=True)
class EligibilityDecision:
    """The convertEligible decision and its reason code (PA-D2, PA-D3, KA-A8)."""

    convert_eligible: bool
    reason: str


@dataclass(frozen=True, slots=True)
class SamplerProfile:
    name: str
    temperature: float
    top_p: float
    max_tokens: int


@dataclass(frozen=True, slots=True)
class CallUsage:
    """Tokens of one call as the endpoint reported them (``None``: not said)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One call to a model, successful or not.

    ``request_model`` is the model asked for, ``response_model`` the one
    the endpoint says answered ("" when it did not say). ``latency_ms``
    covers the whole call, retries included; ``ttft_ms`` (streaming only)
    is the time from the start of the call to the first piece of text.
    ``retries`` is the number of attempts after the first; ``error`` is
    ``"<code>: <message>"`` for a failed call, else "".
    """

    provider: str
    request_model: str
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    response_model: str = ""
    response_id: str = ""
    usage: CallUsage | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    latency_ms: float | None = None
    ttft_ms: float | None = None
    finish_reason: str = ""
    retries: int = 0
    error: str = ""
    streamed: bool = False

    @property
    def request_params(self) -> dict[str, float | int]:
        """The sampling parameters that were sent, by their wire names."""
        sent = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
        }
        return {name: value for name, value in sent.items() if value is not None}


@dataclass(frozen=True, slots=True)
class Generation:
    """Model output; ``latency_ms`` is ``None`` when the adapter did not time it.

    ``call`` is the record of the call that produced it (``None`` from an
    adapter that reports none). It takes no part in comparisons: the same
    output with the same latency is the same generation, whenever it ran.
    """

    text: str
    latency_ms: float | None = None
    call: ModelCall | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class PipelineResult:
    """One pass through frame -> model -> sanitize -> ground -> eligibility."""

    frame: RenderedFrame
    prompt: str
    generation: Generation
    sanitized: SanitizeResult
    grounding: GroundingResult
    eligibility: EligibilityDecision
    routable: bool
