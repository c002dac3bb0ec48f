"""The sanitizer pipeline (the agency contract §2): each stage, the order, the result."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from stream.core.degeneration import (
    MAX_SCAN_WORDS,
    _third_trigram_index,
    truncate_degeneration,
)
from stream.core.sanitizer import (
    LEAK_PREFIXES,
    STAGES,
    normalize_whitespace,
    sanitize,
    strip_code_fences,
    strip_system_prompt_leaks,
    strip_trailing_garbage,
    strip_wrapping_quotes,
)
from stream.core.types import Goal, GoalFailReason, IntentParse

# --- stages ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```\nI see a cow.\n```", "I see a cow.\n"),
        ("```text\nI see a cow.\n```", "I see a cow.\n"),
        ("```text I need food.\n```", "I need food.\n"),
        ("``` I should find shelter. ```", "I should find shelter. "),
        ("```c++  \nx\n```", "++  \nx\n"),
        # A fence takes the letters glued to it as its language tag.
        ("Before ```inline``` after", "Before after"),
        ("```python print(1)```", "print(1)"),
        ("The item ``oak_log`` is useful.", "The item ``oak_log`` is useful."),
        ("``````", ""),
        ("no fences `here`", "no fences `here`"),
    ],
)
def test_strip_code_fences(text: str, expected: str) -> None:
    assert strip_code_fences(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"I see a cow."', "I see a cow."),
        ("  'I see a cow.'  ", "I see a cow."),
        ("\"'I see a cow.'\"", "I see a cow."),
        ("\"'`three`'\"", "`three`"),
        ("\u201cCurly.\u201d", "Curly."),
        # The reference's rules: a quote at both ends goes whatever is
        # between, a lone opening or closing quote goes, twice over.
        ('"A" and "B"', 'A" and "B'),
        ('"unbalanced', "unbalanced"),
        ("unbalanced'", "unbalanced"),
        ("''x''", "x"),
        ('"', ""),
        ("\u2018single curly\u2019", "\u2018single curly\u2019"),
    ],
)
def test_strip_wrapping_quotes_up_to_twice(text: str, expected: str) -> None:
    assert strip_wrapping_quotes(text) == expected


@pytest.mark.parametrize("prefix", LEAK_PREFIXES)
def test_each_leak_prefix_is_cut_to_the_next_sentence(prefix: str) -> None:
    assert strip_system_prompt_leaks(f"{prefix}, with more. I see a cow.") == (
        "I see a cow."
    )


def test_leak_prefix_is_case_insensitive_and_repeated_leaks_go() -> None:
    text = (
        "you are my private inner thought. Write exactly one or two short "
        "sentences about it!\nSay what I notice. The cave is dark."
    )
    assert strip_system_prompt_leaks(text) == "The cave is dark."


def test_leak_cut_skips_to_the_first_capital_after_the_boundary() -> None:
    text = "You are an agent in 3.5 worlds. and then... Zombies ahead."
    assert strip_system_prompt_leaks(text) == "Zombies ahead."


def test_leak_with_nothing_after_leaves_nothing() -> None:
    assert strip_system_prompt_leaks("You are an agent") == ""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("You are an agent. lowercase only", "lowercase only"),
        ("You are an agent, and i am hungry", "i am hungry"),
        ("Say what I notice: \u05e9\u05dc\u05d5\u05dd", "\u05e9\u05dc\u05d5\u05dd"),
    ],
)
def test_text_after_a_leak_without_a_capital_is_kept(text: str, expected: str) -> None:
    # No sentence boundary before a capital: only punctuation, whitespace and
    # one connector go (the reference's rule).
    assert strip_system_prompt_leaks(text) == expected


def test_leak_prefix_later_in_the_text_is_kept() -> None:
    text = "I think. You are an agent."
    assert strip_system_prompt_leaks(text) is text


def test_four_identical_words_keep_two_and_mark() -> None:
    assert (
        truncate_degeneration("I see the cow cow cow cow here")
        == "I see the cow cow..."
    )


def test_identical_words_compare_case_insensitively() -> None:
    assert truncate_degeneration("Go, go, GO, go, now") == "Go, go,..."
    # Words are what whitespace separates: "go!" is not "go,".
    text = "Go, go, GO, go! now"
    assert truncate_degeneration(text) is text


def test_three_identical_words_are_kept() -> None:
    text = "It is very very very cold."
    assert truncate_degeneration(text) is text


def test_third_trigram_occurrence_is_cut() -> None:
    text = "I go up the hill and I go up the hill and I go up the hill again."
    assert truncate_degeneration(text) == "I go up the hill and I go up the hill and..."


def test_trigram_rule_needs_nine_words() -> None:
    text = "a b c a b c a b"  # trigram thrice only with 9 words
    assert truncate_degeneration(text) is text
    assert truncate_degeneration(text + " c") == "a b c a b c..."


def test_repeated_words_are_looked_for_before_trigrams() -> None:
    text = "go up the go up the go up the cow cow cow cow"
    assert truncate_degeneration(text) == "go up the go up the go up the cow cow..."
    assert truncate_degeneration("a a a a b c b c b c") == "a a..."


def test_the_first_trigram_seen_thrice_decides_the_cut() -> None:
    # "b c d" is seen first, "x y z" reaches three first: "b c d" decides.
    text = "b c d x y z x y z x y z b c d b c d"
    assert truncate_degeneration(text) == "b c d x y z x y z x y z b c d..."


def test_kept_words_are_joined_by_one_space() -> None:
    assert truncate_degeneration("a\n\na\ta  a") == "a a..."


def test_numbers_left_after_the_number_rule_go_as_a_fragment() -> None:
    assert strip_trailing_garbage("Done.\n4\n2") == "Done."


def test_two_trigram_occurrences_are_kept() -> None:
    text = "The cow is here and the cow is there, so I wait."
    assert truncate_degeneration(text) is text


def test_trigram_search_is_bounded() -> None:
    filler = " ".join(f"w{i}" for i in range(MAX_SCAN_WORDS))
    text = filler + " x y z x y z x y z"
    assert truncate_degeneration(text) is text


@given(st.lists(st.sampled_from("abcd"), min_size=0, max_size=200))
def test_third_trigram_is_that_of_the_first_trigram_seen_thrice(
    words: list[str],
) -> None:
    # The reference walks its trigrams in first-seen order and cuts at the
    # third occurrence of the first one that occurs three times.
    positions: dict[tuple[str, ...], list[int]] = {}
    for i in range(len(words) - 2):
        positions.setdefault(tuple(words[i : i + 3]), []).append(i)
    thrice = [found[2] for found in positions.values() if len(found) >= 3]
    assert _third_trigram_index(words) == (thrice[0] if thrice else None)


def test_trigram_prefix_search_finds_late_loops() -> None:
    words = [f"w{i}" for i in range(3000)] + ["x", "y", "z"] * 3
    assert _third_trigram_index(words) == 3006


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I see a cow. 42", "I see a cow."),
        ("I see a cow.\n7", "I see a cow."),
        ("I see a cow. And then the", "I see a cow."),
        ("I see a cow! so it", "I see a cow!"),
        # After the last "." goes, closing quote and all (the reference rule).
        ('He said "stop." and then', 'He said "stop.'),
        # A "." inside a word ends no sentence: nothing is cut.
        ("I have 3.14 apples", "I have 3.14 apples"),
        ("3.14", "3.14"),
        ("Done. See x.com now", "Done. See x.com now"),
        ("I see a cow. And then it walks away", "I see a cow. And then it walks away"),
        ("I count 3", "I count 3"),
        ("I see a cow", "I see a cow"),
        ("I see a cow.\nthen a pig", "I see a cow."),
        ("Line one\nline two", "Line one\nline two"),
        ("It ends...", "It ends..."),
        # A failed tag after a sentence is a dangling fragment, as upstream.
        ("Thinking. [GOAL: dance]", "Thinking."),
        ("[GOAL: find] shelter", "[GOAL: find] shelter"),
        ("Text [GOAL:] more text", "Text [GOAL:] more text"),
    ],
)
def test_strip_trailing_garbage(text: str, expected: str) -> None:
    assert strip_trailing_garbage(text) == expected


def test_trailing_garbage_leaves_clean_text_identical() -> None:
    text = "All quiet.  "
    assert strip_trailing_garbage(text) is text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  a   b\t\tc  ", "a b c"),
        ("I   should   explore.", "I should explore."),
        ("I\n\nshould\texplore.", "I should explore."),
        ("a \n  b", "a b"),
        ("a\r\nb\rc", "a b c"),
        ("\n\na\n\n", "a"),
        ("a\u00a0b\u2003c\ufeffd\u2028e", "a b c d e"),
        ("tidy text", "tidy text"),
    ],
)
def test_normalize_whitespace(text: str, expected: str) -> None:
    assert normalize_whitespace(text) == expected


def test_normalize_whitespace_of_long_text_matches_short_text() -> None:
    line = "a \t b\u2003 c \n\n\n\n d \r\n"
    assert normalize_whitespace(line * 1000) == " ".join(["a b c d"] * 1000)


# --- the pipeline ------------------------------------------------------------


def test_stage_order_is_the_seed_order() -> None:
    assert STAGES == (
        "code_fences", "wrapping_quotes", "prompt_leaks", "goal_tag", "intent",
        "degeneration", "trailing_garbage", "whitespace",
    )  # fmt: skip


def test_sanitize_full_result() -> None:
    raw = '```\n"I see iron. [GOAL: mine iron_ore 3]\nINTENT: mine"\n```'
    result = sanitize(raw)
    assert result.text == "I see iron."
    assert result.goal == Goal("mine", "iron_ore", None, 3, "[GOAL: mine iron_ore 3]")
    assert result.goal_fail_reason is None
    assert result.goal_tag_count == 1
    assert result.goal_key == "mine:iron_ore"
    assert result.intent == "mine"
    assert result.intent_parse == IntentParse.FINAL_LINE
    assert result.flags == ("code_fences", "wrapping_quotes", "goal_tag", "intent")


def test_clean_text_has_no_flags() -> None:
    result = sanitize("All quiet in the plains.")
    assert result.text == "All quiet in the plains."
    assert result.flags == ()
    assert result.goal is None
    assert result.goal_fail_reason == GoalFailReason.NO_TAG
    assert (result.goal_tag_count, result.goal_key) == (0, None)
    assert (result.intent, result.intent_parse) == (None, None)


def test_goal_is_extracted_before_intent_and_degeneration() -> None:
    result = sanitize("go go go go [GOAL: navigate village] INTENT: navigate")
    assert result.goal is not None
    assert result.goal.target == "village"
    assert result.intent == "navigate"
    assert result.text == "go go..."


def test_goal_tag_after_a_leak_survives_the_leak_cut() -> None:
    result = sanitize("You are an agent. [GOAL: mine stone] Zombie close.")
    assert result.goal is not None
    assert (result.goal.action, result.goal.target) == ("mine", "stone")
    assert result.text == "Zombie close."
    assert result.flags == ("prompt_leaks", "goal_tag")


def test_targetless_goal_has_no_goal_key() -> None:
    result = sanitize("Enough. [GOAL: pause]")
    assert result.goal is not None
    assert result.goal_key is None


def test_failed_tag_keeps_the_text_after_it_and_its_raw_tag() -> None:
    result = sanitize("[GOAL: find] shelter")
    assert result.goal is None
    assert result.goal_fail_reason == GoalFailReason.NO_TARGET
    assert result.goal_tag_count == 1
    assert result.text == "[GOAL: find] shelter"
    assert result.raw_goal_tag == "[GOAL: find]"


def test_empty_tag_keeps_the_text_after_it() -> None:
    result = sanitize("Text [GOAL:] more text")
    assert result.goal_fail_reason == GoalFailReason.EMPTY_INNER
    assert result.text.endswith("more text")
    assert result.raw_goal_tag == "[GOAL:]"


def test_unknown_action_keeps_its_raw_tag() -> None:
    result = sanitize("Something [GOAL: teleport spawn]")
    assert result.goal is None
    assert result.raw_goal_tag == "[GOAL: teleport spawn]"


def test_raw_goal_tag_is_none_on_success() -> None:
    assert sanitize("[GOAL: mine stone]").raw_goal_tag is None


# --- properties --------------------------------------------------------------


def _joined(fragments: list[str], max_size: int) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(fragments), max_size=max_size).map("".join)


# Idempotence holds where no rule is single-pass by contract: wrapping quotes
# (twice), leak prefixes (each once), goal tags (first wins), a trailing
# number (one), INTENT or tags that expose a quote or leak once removed. Such
# text is left out here.
PROSE = _joined(
    [*"abcdefgh ABCDEFGH.,!?\n\t\r\u00a0", "cow", "cow cow ", "go up the ",
     "you are an agent", "You are an agent. ", "Say what I notice", "```",
     "```py\n"],
    60,
)  # fmt: skip
ANY_TEXT = _joined(
    [*"ab AB.!?\n\t\"'`[]:0123\r", "[GOAL: mine stone", "INTENT:", "```"], 60
)


@given(PROSE)
def test_sanitize_is_idempotent_on_prose(text: str) -> None:
    # Each leak prefix is looked for once, in list order (the reference's
    # loop): a second leak sentence is left for the next pass.
    lowered = text.lower()
    assume(sum(lowered.count(prefix.lower()) for prefix in LEAK_PREFIXES) <= 1)
    once = sanitize(text).text
    assert sanitize(once).text == once


@given(ANY_TEXT)
@settings(max_examples=300)
def test_intent_never_survives(text: str) -> None:
    assert "INTENT:" not in sanitize(text).text


@given(st.one_of(ANY_TEXT, st.text()))
@settings(max_examples=300)
def test_output_is_never_longer_than_input_plus_ellipsis(text: str) -> None:
    assert len(sanitize(text).text) <= len(text) + 3


@given(st.one_of(ANY_TEXT, st.text()))
def test_flags_name_exactly_the_changing_stages_in_order(text: str) -> None:
    flags = sanitize(text).flags
    assert list(flags) == sorted(flags, key=STAGES.index)
    assert len(set(flags)) == len(flags)


@given(st.text())
def test_never_raises_and_goal_key_is_never_empty(text: str) -> None:
    result = sanitize(text)
    assert result.goal_key != ""
    assert (result.goal is None) == (result.goal_fail_reason is not None)


def test_a_longer_upper_case_before_the_tag_does_not_shift_it() -> None:
    # The reference finds the opener in text.toUpperCase() ("STRASSE") and
    # cuts the original at that index; the opener is found in the text here.
    result = sanitize("Straße ist lang. [GOAL: mine stone]")
    assert result.goal is not None
    assert (result.goal.action, result.goal.target) == ("mine", "stone")
    assert result.text == "Straße ist lang."


def test_whitespace_alone_gives_no_intent_parse() -> None:
    # The reference reports inline_noncompliant here (its strip collapses the
    # double space and it compares texts); no INTENT token, no parse.
    result = sanitize("I see  a cow. ")
    assert (result.intent, result.intent_parse) == (None, None)
