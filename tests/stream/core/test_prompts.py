"""KA-A1: no goal injection in the framing; the template validator itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stream.core.frames import render_frame
from stream.core.prompts import (
    ACTION_VERB_FORMS,
    BANNED_PHRASES,
    DEFAULT_TEMPLATE,
    FRAME_SLOT,
    GOAL_TAG_SYNTAX,
    TEMPLATES,
    build_prompt,
    template_violations,
)
from stream.core.types import PromptProfile, SituationFacts

STREAM_CORE = Path(__file__).parents[3] / "stream" / "core"


def test_banned_phrases_are_the_documented_ones() -> None:
    assert BANNED_PHRASES == (
        "you should", "you could", "consider doing", "consider gathering",
        "consider crafting", "consider building", "might want to", "try to",
        "why not", "perhaps you", "maybe you", "it would be good to",
        "a good idea would be", "options include", "you can choose to",
    )  # fmt: skip


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_ka_a1_every_shipped_template_has_no_violation(name: str) -> None:
    assert template_violations(TEMPLATES[name]) == ()


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_ka_a1_the_only_format_line_is_the_goal_tag_syntax(name: str) -> None:
    lines = TEMPLATES[name].splitlines()
    format_lines = [line for line in lines if "<" in line or "[" in line]
    assert format_lines == [GOAL_TAG_SYNTAX]
    assert "INTENT" not in TEMPLATES[name]
    assert TEMPLATES[name].count(FRAME_SLOT) == 1


@pytest.mark.parametrize("profile", list(PromptProfile))
def test_ka_a1_rendered_prompts_have_no_violation(
    full_facts: SituationFacts, calm_facts: SituationFacts, profile: PromptProfile
) -> None:
    for facts in (full_facts, calm_facts):
        prompt = build_prompt(render_frame(facts, profile=profile))
        assert template_violations(prompt) == ()


def test_ka_a1_frame_construction_code_names_no_action_verb() -> None:
    # Seed 000 KA-A1: "no keep-alive code contains hardcoded verbs suggesting
    # actions ... in the situation-frame construction path".
    forms = {form for forms in ACTION_VERB_FORMS.values() for form in forms}
    for module in ("frames.py", "prompts.py"):
        source = (STREAM_CORE / module).read_text()
        if module == "prompts.py":
            # The validator's own phrase list names what it rejects.
            source = source.split("BANNED_PHRASES: Final = (")[0]
        words = set(re.findall(r"[a-z_]+", source.lower()))
        assert words & forms == set(), module


@pytest.mark.parametrize("phrase", BANNED_PHRASES)
def test_each_banned_phrase_is_rejected(phrase: str) -> None:
    text = f"The night is cold.\n{phrase.upper()}   rest a while."
    assert f"banned_phrase:{phrase}" in template_violations(text)


def test_banned_phrase_split_over_lines_is_rejected() -> None:
    assert template_violations("You\n  should rest.") == ("banned_phrase:you should",)


@pytest.mark.parametrize(
    ("text", "verb"),
    [
        ("Go mining today.", "mine"),
        ("Crafting helps.", "craft"),
        ("A house was built.", "build"),
        ("Explore the area.", "explore"),
        ("Keep gathering.", "gather"),
        ("It was found.", "find"),
        ("Smelted ore.", "smelt"),
    ],
)
def test_action_verbs_are_rejected_in_any_form(text: str, verb: str) -> None:
    assert template_violations(text) == (f"action_verb:{verb}",)


def test_item_names_are_not_verbs() -> None:
    assert template_violations("Inventory: crafting_table x1, mine_cart x2") == ()


def test_other_format_lines_are_rejected() -> None:
    text = "Facts below.\nINTENT: <label>\nACTION: walk"
    assert template_violations(text) == (
        "format_line:ACTION: walk",
        "format_line:INTENT: <label>",
    )


def test_goal_tag_syntax_line_is_allowed() -> None:
    assert template_violations(f"Facts.\n{GOAL_TAG_SYNTAX}\n") == ()


def test_build_prompt_wraps_the_frame(calm_facts: SituationFacts) -> None:
    frame = render_frame(calm_facts, profile=PromptProfile.MINIMAL)
    prompt = build_prompt(frame)
    assert prompt == TEMPLATES[DEFAULT_TEMPLATE].replace(FRAME_SLOT, frame.text)
    assert prompt.endswith(frame.text)
    assert prompt.startswith("You are my private inner thought.")


def test_unknown_template_is_a_key_error(calm_facts: SituationFacts) -> None:
    frame = render_frame(calm_facts, profile=PromptProfile.MINIMAL)
    with pytest.raises(KeyError):
        build_prompt(frame, template="suggestive.v0")
