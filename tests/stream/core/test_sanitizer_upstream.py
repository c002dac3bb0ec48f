"""The reference sanitizer's own expectations hold for ours (the agency contract §2).

The cases are the assertions of the upstream sanitizer and INTENT test
suites, stage by stage and through the whole pipeline, plus behaviour
computed by running the reference parser (trailing amounts, failed tags).
"""

from __future__ import annotations

import pytest

from stream.core.degeneration import truncate_degeneration
from stream.core.goals import CANONICAL_ACTIONS, extract_goal_tag
from stream.core.intent import extract_intent
from stream.core.sanitizer import (
    has_code_like_density,
    is_usable_content,
    normalize_whitespace,
    sanitize,
    strip_code_fences,
    strip_system_prompt_leaks,
    strip_trailing_garbage,
)
from stream.core.types import IntentParse

# --- stages ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("``` I should find shelter. ```", "I should find shelter. "),
        ("```text I need food.\n```", "I need food.\n"),
        (
            "```\nI should craft a pickaxe to mine stone.\n```",
            "I should craft a pickaxe to mine stone.\n",
        ),
        (
            "I need to craft a `wooden_pickaxe` to mine stone.",
            "I need to craft a `wooden_pickaxe` to mine stone.",
        ),
        ("The item ``oak_log`` is useful.", "The item ``oak_log`` is useful."),
    ],
)
def test_code_fences(text: str, expected: str) -> None:
    assert strip_code_fences(text) == expected


def test_multiple_fenced_blocks() -> None:
    result = strip_code_fences("```text\nFirst.\n```\nMiddle.\n```\nSecond.\n```")
    assert "```" not in result
    assert "First." in result
    assert "Second." in result


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "You are my private inner thought... I should find shelter.",
            "I should find shelter.",
        ),
        (
            "You are an agent, and your inner thoughts must be... I need shelter.",
            "I need shelter.",
        ),
        (
            "Write exactly one or two short sentences. I see a cave ahead.",
            "I see a cave ahead.",
        ),
        ("Say what I notice and do next. The forest is dark.", "The forest is dark."),
        (
            "I should find shelter before nightfall.",
            "I should find shelter before nightfall.",
        ),
        ("you are my private inner thought. I need food.", "I need food."),
    ],
)
def test_system_prompt_leaks(text: str, expected: str) -> None:
    assert strip_system_prompt_leaks(text) == expected


@pytest.mark.parametrize(
    ("text", "action", "target", "amount", "rest"),
    [
        ("I should mine stone. [GOAL: mine stone 16]", "mine", "stone", 16, "I should mine stone."),
        (
            "Time to craft a pickaxe. [GOAL: craft wooden_pickaxe]",
            "craft", "wooden_pickaxe", None, "Time to craft a pickaxe.",
        ),
        ("Need resources. [GOAL: collect oak log 5]", "collect", "oak log", 5, "Need resources."),
        ("Looking around. [GOAL: find shelter]", "find", "shelter", None, "Looking around."),
        ("I need to build. [GOAL: build shelter 1", "build", "shelter", 1, "I need to build."),
        ("[GOAL: find shelter]", "find", "shelter", None, ""),
        ("I need to. [GOAL: dig stone 5]", "mine", "stone", 5, "I need to."),
        ("Thought [goal: mine iron_ore 3]", "mine", "iron_ore", 3, "Thought"),
        ("I should [GOAL: build shelter", "build", "shelter", None, "I should"),
        ("Text [GOAL: build shelter 1] 37", "build", "shelter", 1, "Text"),
        ("Text [GOAL: craft oak_planks] 20", "craft", "oak_planks", 20, "Text"),
        ("[GOAL: collect oak_log amount=20]", "collect", "oak_log", 20, ""),
        ("[GOAL: collect oak_log] 20", "collect", "oak_log", 20, ""),
        ("I will craft. [GOAL: craft stick] Soon.", "craft", "stick", None, "I will craft.  Soon."),
        ("[GOAL: mine stone] 20x", "mine", "stone", 20, ""),
        ("[GOAL: collect 8 oak_log]", "collect", "oak_log", None, ""),
        ("[GOAL: _dig_ stone]", "mine", "stone", None, ""),
    ],
)  # fmt: skip
def test_goal_tag(
    text: str, action: str, target: str, amount: int | None, rest: str
) -> None:
    # The text left is trimmed, as the reference's is.
    result = extract_goal_tag(text)
    assert result.goal is not None
    assert (result.goal.action, result.goal.target, result.goal.amount) == (
        action,
        target,
        amount,
    )
    assert result.text == rest


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("[GOAL: find] shelter", "[GOAL: find]"),
        ("Something [GOAL: teleport home]", "[GOAL: teleport home]"),
        ("[GOAL: ]", "[GOAL: ]"),
    ],
)
def test_failed_goal_tag_keeps_text_and_raw_tag(text: str, raw: str) -> None:
    result = extract_goal_tag(text)
    assert result.goal is None
    assert result.raw == raw
    assert result.text == text


def test_every_opener_is_counted_and_the_first_wins() -> None:
    result = extract_goal_tag("[GOAL: craft wood] [GOAL: collect stone]")
    assert result.tag_count == 2
    assert result.goal is not None
    assert result.goal.action == "craft"


@pytest.mark.parametrize(
    "text",
    [
        "I'm trying to find a way to create a way to create a way to create something.",
        "I should find find find find shelter.",
    ],
)
def test_degeneration_is_cut(text: str) -> None:
    result = truncate_degeneration(text)
    assert "..." in result
    assert len(result) < len(text)


@pytest.mark.parametrize(
    "text",
    [
        "I should gather wood and build a shelter before night.",
        "I need to eat. I need to sleep.",
    ],
)
def test_normal_text_is_not_degenerate(text: str) -> None:
    assert truncate_degeneration(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I should explore the cave. 42", "I should explore the cave."),
        ("I should mine stone. The cave is very", "I should mine stone."),
        (
            "I should mine stone. The cave is dark.",
            "I should mine stone. The cave is dark.",
        ),
        ("I should find shelter.", "I should find shelter."),
    ],
)
def test_trailing_garbage(text: str, expected: str) -> None:
    assert strip_trailing_garbage(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I   should   explore.", "I should explore."),
        ("I\n\nshould\texplore.", "I should explore."),
        ("  I should explore.  ", "I should explore."),
    ],
)
def test_whitespace(text: str, expected: str) -> None:
    assert normalize_whitespace(text) == expected


@pytest.mark.parametrize(
    ("text", "usable"),
    [
        ("", False),
        ("   ", False),
        ("Hi", False),
        ("...", False),
        ("---", False),
        ("Maintaining awareness of surroundings.", False),
        ("Observing surroundings.", False),
        ("I should gather wood before nightfall.", True),
        ("I need to craft a pickaxe to mine stone.", True),
        ("I notice... trees.", True),
    ],
)
def test_usable_content(text: str, usable: bool) -> None:
    assert is_usable_content(text) is usable


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (
            "import os\nfrom sys import argv\ndef main():\n    data = {}\n"
            "    for x in items:\n        print(x)",
            True,
        ),
        ('import os\nprint("hi")', False),
        (
            "I should import wood from the nearby forest.\nThe logs are plentiful.\n"
            "I need shelter before nightfall.",
            False,
        ),
        (
            "const x = 5;\nlet y = [];\nfunction test() {\n  return x + y;\n}\n"
            'if (x > 0) {\n  console.log("done");\n}',
            True,
        ),
        ("const x = foo({ bar: [1,2,3] });", True),
    ],
)
def test_code_like_density(text: str, code: bool) -> None:
    assert has_code_like_density(text) is code


def test_canonical_actions() -> None:
    assert {"collect", "mine", "craft", "build"} <= CANONICAL_ACTIONS
    assert {"find", "explore", "navigate", "check", "continue"} <= CANONICAL_ACTIONS
    assert not {"teleport", "fly", "destroy"} & CANONICAL_ACTIONS


# --- INTENT ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "intent", "parse", "rest"),
    [
        ("I should gather wood.\nINTENT: gather", "gather", IntentParse.FINAL_LINE, "I should gather wood."),
        ("Some thought.\nINTENT: teleport", None, IntentParse.FINAL_LINE, "Some thought."),
        ("Some thought.\nINTENT: fly\n\n", None, IntentParse.FINAL_LINE, "Some thought."),
        ("I should explore the cave.", None, None, "I should explore the cave."),
        ("Thought.\nintent: explore", "explore", IntentParse.FINAL_LINE, "Thought."),
        ("Line one.\nLine two.\nINTENT: craft", "craft", IntentParse.FINAL_LINE, "Line one.\nLine two."),
        ("Thought.\nINTENT:   mine  ", "mine", IntentParse.FINAL_LINE, "Thought."),
        ("INTENT: navigate", "navigate", IntentParse.FINAL_LINE, ""),
        ("I should gather wood.\nINTENT: gather\n\n", "gather", IntentParse.FINAL_LINE, "I should gather wood."),
        ("Thought.\nINTENT: explore\n   \n  ", "explore", IntentParse.FINAL_LINE, "Thought."),
    ],
)  # fmt: skip
def test_intent(
    text: str, intent: str | None, parse: IntentParse | None, rest: str
) -> None:
    result = extract_intent(text)
    assert (result.intent, result.intent_parse, result.text) == (intent, parse, rest)


@pytest.mark.parametrize(
    ("text", "intent", "kept"),
    [
        ("INTENT: gather\nI should do something else.", "gather", ["I should do something else."]),
        ("First.\nINTENT: gather\nLast line here.", "gather", ["First.", "Last line here."]),
        (
            "I will look for a nearby tree. INTENT: explore I notice a nearby tree.",
            "explore",
            ["I will look for a nearby tree.", "I notice a nearby tree."],
        ),
        ("First. INTENT: gather Second. INTENT: mine Third.", "gather", []),
    ],
)  # fmt: skip
def test_inline_intent(text: str, intent: str, kept: list[str]) -> None:
    result = extract_intent(text)
    assert result.intent == intent
    assert result.intent_parse == IntentParse.INLINE_NONCOMPLIANT
    assert "INTENT" not in result.text
    for part in kept:
        assert part in result.text


# --- the pipeline ------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("``` I should find shelter. ```", "I should find shelter."),
        ("```text I need food.\n```", "I need food."),
        ("You are my private inner thought... I should find shelter.", "I should find shelter."),
        ("I should mine stone. [GOAL: mine stone 16]", "I should mine stone."),
        ("Time to craft a pickaxe. [GOAL: craft wooden_pickaxe]", "Time to craft a pickaxe."),
        ("I should explore the cave. 42", "I should explore the cave."),
        ("I should mine stone. The cave is very", "I should mine stone."),
        ("I should gather wood before nightfall.", "I should gather wood before nightfall."),
        ("", ""),
        ("   \n\t  ", ""),
        ("[GOAL: craft stick] I will craft sticks.", "I will craft sticks."),
        ("I will explore the area.\nINTENT: explore", "I will explore the area."),
        ("Hmm.\nINTENT: fly", "Hmm."),
        ("I should explore.\nINTENT: explore", "I should explore."),
    ],
)  # fmt: skip
def test_pipeline_text(raw: str, text: str) -> None:
    assert sanitize(raw).text == text


def test_pipeline_flags_on_clean_text() -> None:
    result = sanitize("I should gather wood before nightfall.")
    assert result.goal is None
    assert result.flags == ()
    assert result.had_code_content is False


def test_pipeline_combined_issues() -> None:
    raw = (
        "```text\nYou are my private inner thought. I should find find find find "
        "shelter. [GOAL: build shelter 1] 37\n```"
    )
    result = sanitize(raw)
    assert result.goal is not None
    assert (result.goal.action, result.goal.target, result.goal.amount) == (
        "build",
        "shelter",
        1,
    )
    assert {"code_fences", "prompt_leaks"} <= set(result.flags)
    assert "```" not in result.text
    assert "You are my private" not in result.text
    assert "37" not in result.text


def test_pipeline_goal_fields() -> None:
    result = sanitize("I should mine stone. [GOAL: mine stone 16]")
    assert result.goal is not None
    assert result.goal.raw == "[GOAL: mine stone 16]"
    result = sanitize("Time to mine. [GOAL: craft oak_planks] 20")
    assert result.goal is not None
    assert (result.goal.target, result.goal.amount) == ("oak_planks", 20)
    result = sanitize("I should mine stone. [GOAL: mine stone 16]\nINTENT: mine")
    assert result.goal is not None
    assert (result.goal.action, result.intent) == ("mine", "mine")


def test_pipeline_marks_code_content() -> None:
    raw = (
        "import os\nfrom collections import defaultdict\ndef main():\n"
        "    data = {}\n    for item in items:\n        process(item)"
    )
    assert sanitize(raw).had_code_content is True


def test_pipeline_keeps_the_raw_tag_of_an_unknown_action() -> None:
    result = sanitize("Something [GOAL: teleport spawn]")
    assert result.goal is None
    assert result.raw_goal_tag == "[GOAL: teleport spawn]"


def test_pipeline_detects_degeneration() -> None:
    assert "degeneration" in sanitize("word word word word word").flags
