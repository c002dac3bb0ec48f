"""I-1 / KA-A1 at run time: no prompt carries goal text (pure, no database)."""

from __future__ import annotations

import pytest

from core.errors import CoreError
from stream.core.frames import facts_from_wire, render_frame
from stream.core.keepalive import poke_wait_ms
from stream.core.prompt_guard import (
    PromptViolation,
    check_prompt,
    goal_text_violations,
    prompt_violations,
)
from stream.core.prompts import build_prompt
from stream.core.thought_types import RESERVED_TYPES, is_reserved_type
from stream.core.types import EpisodicMemory, Memory, PromptProfile

FACTS = {
    "facts": {
        "bot": {
            "position": {"x": 0, "y": 64, "z": 0},
            "health": 20,
            "hunger": 20,
            "inventorySummary": [{"item": "oak_log", "count": 4}],
            "timeOfDay": "day",
        },
        "world": {"biome": "forest", "nearbyEntities": []},
    }
}


def _frame(memory_text: str | None = None):  # type: ignore[no-untyped-def]
    import dataclasses

    facts = facts_from_wire(FACTS)
    if memory_text is not None:
        facts = dataclasses.replace(
            facts,
            memory=Memory(episodic=(EpisodicMemory(1, memory_text),), semantic=None),
        )
    return render_frame(facts, profile=PromptProfile.BALANCED)


@pytest.mark.parametrize(
    "text",
    [
        "Drive tick (no_logs): (GOAL: collect oak_log 8)",
        "[GOAL: mine stone 3]",
        "[ goal : craft crafting_table ]",
        "GOAL: explore nearby",
        "{Goal: build shelter}",
    ],
)
def test_i_1_goal_text_is_found_in_any_bracket_style(text: str) -> None:
    assert goal_text_violations(text) == ("goal_tag",)


@pytest.mark.parametrize(
    "text", ["I mined some stone earlier.", "My goal was unclear.", "Calm forest."]
)
def test_i_1_the_agents_own_words_are_not_goal_text(text: str) -> None:
    assert goal_text_violations(text) == ()


def test_ka_a1_a_clean_prompt_passes() -> None:
    frame = _frame("I mined some stone earlier.")
    assert prompt_violations(build_prompt(frame), frame=frame) == ()
    check_prompt(build_prompt(frame), frame=frame)


def test_ka_a1_a_memory_with_a_goal_is_refused_with_its_code() -> None:
    frame = _frame("Drive tick (no_logs): (GOAL: collect oak_log 8)")
    with pytest.raises(PromptViolation) as refused:
        check_prompt(build_prompt(frame), frame=frame)
    assert refused.value.details == {"violations": ["frame:goal_tag"]}
    assert isinstance(refused.value, CoreError)


def test_ka_a1_a_suggestion_in_the_template_words_is_refused() -> None:
    frame = _frame()
    prompt = "You should gather wood.\n" + build_prompt(frame)
    assert prompt_violations(prompt, frame=frame) == (
        "action_verb:gather",
        "banned_phrase:you should",
    )


def test_reserved_types_are_the_services_own() -> None:
    assert RESERVED_TYPES == ("environmental_awareness", "drive_tick", "keepalive")
    assert is_reserved_type("KeepAlive ") and not is_reserved_type("reflection")


@pytest.mark.parametrize(
    ("recent", "expected"),
    [((), 0), ((1_000,), 0), ((1_000, 2_000), 59_000), ((0, 1_500, 2_000), 59_500)],
)
def test_ka_a5_poke_limit_window(recent: tuple[int, ...], expected: int) -> None:
    """Two pokes a minute: a third waits until the older of the two expires."""
    assert (
        poke_wait_ms(now_ms=2_000, recent_poke_ms=recent, max_per_minute=2) == expected
    )
