"""The baseline model: a deterministic built-in policy (the demo default).

``BaselineAdapter`` implements ``stream.core.adapters.ModelAdapter`` without a
model. Invariants:

- Same prompt, sampler, seed and scenario give the same output: it builds its
  ``random.Random`` per call from the seed, the scenario id and the frame
  digest, never from module state; it never reads the clock.
- It reads only the rendered frame (what a model would see) and emits a goal
  tag only under a real stimulus: a hostile nearby or a raised threat level,
  damage taken, health <= 6 or hunger <= 6; its goals name only what the
  frame shows or generic words.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from core.canonical import sha256_hex
from stream.core.frames import (
    DAMAGE_PREFIX,
    DAMAGE_SUFFIX,
    SECTION_BOT,
    SECTION_CHANGES,
    SECTION_MEMORY,
    SECTION_WORLD,
    TIME_LABELS,
)
from stream.core.model_calls import PROVIDER_BUILTIN, sampled_call
from stream.core.types import (
    Generation,
    RenderedFrame,
    SamplerProfile,
    TimeOfDay,
)

CRITICAL_VITAL: Final = 6.0
RAISED_THREATS: Final = frozenset({"medium", "high", "critical"})
FOOD_ANIMALS: Final = frozenset(
    {"cow", "pig", "sheep", "chicken", "rabbit", "cod", "salmon"}
)
_TIME_BY_LABEL: Final = {label: time for time, label in TIME_LABELS.items()}
_TIME_PHRASES: Final = {
    TimeOfDay.DAWN: "It is dawn",
    TimeOfDay.DAY: "It is daytime",
    TimeOfDay.SUNSET: "The sun is setting",
    TimeOfDay.NIGHT: "It is night",
    TimeOfDay.UNKNOWN: "I can't tell the time",
}
_SECTIONS: Final = frozenset(
    {SECTION_BOT, SECTION_WORLD, SECTION_CHANGES, SECTION_MEMORY}
)


@dataclass(frozen=True, slots=True)
class Sighting:
    kind: str
    count: int
    distance: int
    hostile: bool


@dataclass(slots=True)
class Observations:
    """What the baseline reads back from a rendered frame."""

    health: float | None = None
    hunger: float | None = None
    time: TimeOfDay | None = None
    threat: str | None = None
    inventory: list[str] = field(default_factory=list)
    biome: str | None = None
    nearby: list[Sighting] = field(default_factory=list)
    damage: float = 0.0


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _sightings(part: str) -> Iterator[Sighting]:
    """The entity of one ``Nearby:`` line (``2x zombie (5m) [hostile]``)."""
    hostile = part.endswith(" [hostile]")
    body = part.removesuffix(" [hostile]")
    count_text, _, rest = body.partition("x ")
    kind, distance_text = rest, "0m)"
    if rest.endswith("m)") and " (" in rest:
        kind, _, distance_text = rest.rpartition(" (")
    count = _number(count_text)
    distance = _number(distance_text.removesuffix("m)"))
    if kind and count is not None and distance is not None:
        yield Sighting(kind, int(count), int(distance), hostile)


def observe(frame_text: str) -> Observations:
    """Read the facts back out of a rendered frame (our own format)."""
    seen = Observations()
    for line in frame_text.splitlines():
        if line.startswith(DAMAGE_PREFIX) and line.endswith(DAMAGE_SUFFIX):
            amount = line[len(DAMAGE_PREFIX) : -len(DAMAGE_SUFFIX)]
            seen.damage += _number(amount) or 0.0
            continue
        if line in _SECTIONS or ": " not in line:
            continue
        label, _, value = line.partition(": ")
        if label == "Health":
            seen.health = _number(value.removesuffix("/20"))
        elif label == "Hunger":
            seen.hunger = _number(value.removesuffix("/20"))
        elif label == "Time":
            seen.time = _TIME_BY_LABEL.get(value)
        elif label == "Threat Level":
            seen.threat = value
        elif label == "Inventory" and value != "empty":
            seen.inventory = [
                p.rpartition(" x")[0] for p in value.split(", ") if " x" in p
            ]
        elif label == "Biome":
            seen.biome = value
        elif label == "Nearby":
            seen.nearby.extend(_sightings(value))
    return seen


_SAME_PLURAL: Final = frozenset({"sheep", "cod", "salmon", "fish", "axolotl", "squid"})
_IRREGULAR_PLURAL: Final = {"wolf": "wolves", "witch": "witches", "fox": "foxes"}


def _plural(count: int, kind: str) -> str:
    name = kind.rsplit(":", 1)[-1].replace("_", " ")
    if count == 1:
        return f"an {name}" if name[:1] in "aeiou" else f"a {name}"
    if name in _SAME_PLURAL:
        return f"{count} {name}"
    return f"{count} {_IRREGULAR_PLURAL.get(name, name + 's')}"


def _tag_word(kind: str) -> str:
    """An entity kind as one goal-tag token (namespace dropped, spaces -> _)."""
    return "_".join(kind.rsplit(":", 1)[-1].split())


def _goal(seen: Observations) -> tuple[str, str] | None:
    """(sentence, tag) for the strongest stimulus in ``seen``, or None."""
    if seen.health is not None and seen.health <= 0:
        return None
    hostiles = [s for s in seen.nearby if s.hostile]
    if hostiles:
        nearest = min(hostiles, key=lambda s: (s.distance, s.kind))
        return (
            f"{_plural(nearest.count, nearest.kind).capitalize()} "
            f"{'is' if nearest.count == 1 else 'are'} {nearest.distance}m away "
            "and hostile.",
            f"[GOAL: navigate away from {_tag_word(nearest.kind)}]",
        )
    if seen.threat in RAISED_THREATS:
        return (
            f"The threat level is {seen.threat}.",
            "[GOAL: navigate away]",
        )
    if seen.health is not None and seen.health <= CRITICAL_VITAL:
        return (
            f"My health is down to {seen.health:g}/20.",
            "[GOAL: build shelter 1]",
        )
    if seen.damage > 0:
        return (
            f"I just took {seen.damage:g} damage.",
            "[GOAL: check surroundings]",
        )
    if seen.hunger is not None and seen.hunger <= CRITICAL_VITAL:
        animals = [s for s in seen.nearby if _tag_word(s.kind).lower() in FOOD_ANIMALS]
        tag = (
            f"[GOAL: find {_tag_word(animals[0].kind)} 1]"
            if animals
            else "[GOAL: gather food]"
        )
        return (f"I'm very hungry, hunger at {seen.hunger:g}/20.", tag)
    return None


def _observations(seen: Observations, *, calm: bool) -> list[list[str]]:
    """Candidate factual sentences, grouped by topic, most telling first."""
    topics: list[list[str]] = []
    if seen.time is not None:
        place = f" in the {seen.biome.replace('_', ' ')}" if seen.biome else ""
        phrase = _TIME_PHRASES[seen.time]
        second = f"{phrase} and all is quiet{place}." if calm else f"{phrase}{place}."
        topics.append([f"{phrase}{place}.", second])
    passive = [s for s in seen.nearby if not s.hostile]
    if passive:
        first = passive[0]
        topics.append(
            [
                f"I notice {_plural(first.count, first.kind)} "
                f"about {first.distance}m away.",
                f"There {'is' if first.count == 1 else 'are'} "
                f"{_plural(first.count, first.kind)} nearby.",
            ]
        )
    elif not seen.nearby and seen.biome is not None:
        topics.append(["Nothing is moving nearby.", "No creatures are around me."])
    if seen.health is not None and seen.hunger is not None:
        topics.append(
            [
                f"My health is {seen.health:g}/20 and hunger {seen.hunger:g}/20.",
                f"Health {seen.health:g}/20, hunger {seen.hunger:g}/20.",
            ]
        )
    if seen.inventory:
        held = " and ".join(i.replace("_", " ") for i in seen.inventory[:2])
        topics.append([f"I'm carrying {held}.", f"My pack holds {held}."])
    elif seen.health is not None:
        topics.append(["My inventory is empty.", "I'm carrying nothing."])
    return topics


@dataclass(frozen=True, slots=True)
class BaselineAdapter:
    """A deterministic, seeded stand-in for a model (the demo default)."""

    name: str = "baseline-v1"

    @property
    def model_id(self) -> str:
        return self.name

    def generate(
        self,
        prompt: str,
        *,
        sampler: SamplerProfile,
        seed: int,
        scenario_id: str | None = None,
        frame: RenderedFrame | None = None,
    ) -> Generation:
        """One or two factual sentences, plus a goal tag under real stimulus.

        Low-temperature samplers (< 0.5) always take the first phrasing; others
        choose with ``random.Random`` seeded from ``seed``, ``scenario_id`` and
        the frame digest. Reads ``frame.text`` when given, else the prompt.
        """
        text = frame.text if frame is not None else prompt
        digest = frame.digest if frame is not None else sha256_hex(prompt)
        rng = random.Random(f"{seed}:{scenario_id or ''}:{digest}")
        vary = sampler.temperature >= 0.5
        seen = observe(text)
        goal = _goal(seen)
        topics = _observations(seen, calm=goal is None)
        sentences: list[str] = []
        if goal is not None:
            sentences.append(goal[0])
        wanted = 2 - len(sentences)
        if topics and wanted:
            picked = rng.sample(topics, min(wanted, len(topics))) if vary else topics
            for options in picked[:wanted]:
                sentences.append(rng.choice(options) if vary else options[0])
        if not sentences:
            sentences.append("I can't make out much about my situation.")
        output = " ".join(sentences)
        if goal is not None:
            output += "\n" + goal[1]
        call = sampled_call(
            PROVIDER_BUILTIN,
            self.name,
            sampler=sampler,
            seed=seed,
            finish_reason="stop",
        )
        return Generation(output, None, call)
