"""Goal tags (the agency contract §2.1, §1.3): vocabulary, bounded parse, goalKey."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.whitespace import JS_SPACE_CHARS, JS_SPACE_CLASS
from stream.core.goals import (
    ACTION_NORMALIZE_MAP,
    CANONICAL_ACTIONS,
    MAX_TAG_SCAN,
    NORMALIZE_MAP_VERSION,
    ROUTABLE_ACTIONS,
    canonical_goal_key,
    extract_goal_tag,
    goal_fail_detail,
    goal_key_or_none,
    normalize_action,
)
from stream.core.types import Goal, GoalFailReason


def test_canonical_actions_are_exactly_the_sixteen() -> None:
    assert sorted(CANONICAL_ACTIONS) == [
        "build", "cancel", "check", "collect", "continue", "craft", "explore",
        "find", "gather", "mine", "navigate", "pause", "prioritize", "repair",
        "resume", "smelt",
    ]  # fmt: skip


def test_normalize_map_version_is_three() -> None:
    assert NORMALIZE_MAP_VERSION == 3


def test_normalize_map_is_the_documented_one() -> None:
    expected = {
        "mine": "dig break harvest",
        "collect": "get obtain pickup",
        "craft": "make create",
        "build": "construct assemble reinforce fortify",
        "find": "locate search look identify",
        "navigate": "move go reach walk travel run",
        "check": "observe assess inspect acknowledge hear listen",
        "gather": "acquire increase farm",
        "repair": "fix mend restore",
        "smelt": "cook",
        "cancel": "remove drop abort stop",
        "prioritize": "boost promote",
        "pause": "hold defer suspend",
        "resume": "unpause restart",
    }
    flat = {s: a for a, synonyms in expected.items() for s in synonyms.split()}
    assert flat == ACTION_NORMALIZE_MAP
    assert set(ACTION_NORMALIZE_MAP.values()) <= CANONICAL_ACTIONS


def test_routable_actions() -> None:
    assert sorted(ROUTABLE_ACTIONS) == [
        "build", "collect", "craft", "explore", "find", "gather", "mine",
        "navigate", "repair", "smelt",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("word", "action"),
    [("MINE", "mine"), ("dig", "mine"), ("Pickup", "collect"), ("cook", "smelt"),
     ("unpause", "resume"), ("dance", None), ("", None)],
)  # fmt: skip
def test_normalize_action(word: str, action: str | None) -> None:
    assert normalize_action(word) == action


def test_well_formed_tag_is_extracted_and_stripped() -> None:
    result = extract_goal_tag("I need wood. [GOAL: collect oak_log 8] Then home.")
    assert result.goal == Goal(
        "collect", "oak_log", None, 8, "[GOAL: collect oak_log 8]"
    )
    assert result.fail_reason is None
    assert result.tag_count == 1
    assert result.raw == "[GOAL: collect oak_log 8]"
    assert result.text == "I need wood.  Then home."


def test_opener_is_case_insensitive_and_synonyms_normalise() -> None:
    result = extract_goal_tag("[goal: Dig Iron_Ore]")
    assert result.goal is not None
    assert (result.goal.action, result.goal.target, result.goal.amount) == (
        "mine",
        "iron_ore",
        None,
    )


def test_id_and_amount_keys() -> None:
    result = extract_goal_tag("[GOAL: find cow id=Cow-17 amount=2]")
    # The id is kept as written (the reference's rule): ids are matched exactly.
    assert result.goal == Goal(
        "find", "cow", "Cow-17", 2, "[GOAL: find cow id=Cow-17 amount=2]"
    )


def test_explicit_amount_wins_over_bare_number() -> None:
    result = extract_goal_tag("[GOAL: collect oak_log 8 amount=3]")
    assert result.goal is not None
    assert result.goal.amount == 3


def test_number_before_target_is_no_amount() -> None:
    # Only the last token is a bare amount (the reference parser's rule).
    result = extract_goal_tag("[GOAL: collect 8 oak_log]")
    assert result.goal is not None
    assert (result.goal.target, result.goal.amount) == ("oak_log", None)


def test_number_right_after_bracket_is_the_amount_and_is_stripped() -> None:
    result = extract_goal_tag("Logs. [GOAL: collect oak_log] 4 more")
    assert result.goal == Goal("collect", "oak_log", None, 4, "[GOAL: collect oak_log]")
    assert result.text == "Logs.  more"


def test_number_after_bracket_is_stripped_but_the_tag_amount_wins() -> None:
    result = extract_goal_tag("Text [GOAL: build shelter 1] 37")
    assert result.goal is not None
    assert result.goal.amount == 1
    assert result.text == "Text"


def test_number_with_a_unit_after_bracket_is_the_amount() -> None:
    result = extract_goal_tag("[GOAL: mine stone] 20x now")
    assert result.goal is not None
    assert result.goal.amount == 20
    assert result.text == "now"


def test_number_on_the_next_line_after_bracket_is_the_amount() -> None:
    result = extract_goal_tag("[GOAL: mine stone]\n 5")
    assert result.goal is not None
    assert result.goal.amount == 5
    assert result.text == ""


def test_edge_underscores_are_dropped_before_the_synonym_lookup() -> None:
    result = extract_goal_tag("[GOAL: _dig_ stone]")
    assert result.goal is not None
    assert (result.goal.action, result.goal.target) == ("mine", "stone")


def test_tokens_are_lowercased_and_reduced() -> None:
    result = extract_goal_tag("[GOAL: Collect OAK-LOG, now!]")
    assert result.goal is not None
    assert result.goal.target == "oaklog now"


def test_missing_bracket_runs_to_end_of_line() -> None:
    result = extract_goal_tag("Go [GOAL: navigate village\nsecond line")
    assert result.goal == Goal(
        "navigate", "village", None, None, "[GOAL: navigate village"
    )
    assert result.text == "Go \nsecond line"


def test_missing_bracket_runs_to_end_of_text() -> None:
    result = extract_goal_tag("[GOAL: explore cave")
    assert result.goal is not None
    assert result.goal.target == "cave"
    assert result.text == ""


def test_the_first_closing_bracket_in_reach_closes_the_tag() -> None:
    # The reference's rule: a "]" within the scan closes the first tag, past
    # newlines and further openers; what lies between is target words.
    result = extract_goal_tag("[GOAL: mine stone [GOAL: craft torch]")
    assert result.goal is not None
    assert (result.goal.action, result.goal.target) == (
        "mine",
        "stone goal craft torch",
    )
    assert result.tag_count == 2
    assert result.text == ""
    result = extract_goal_tag("[GOAL: repair\n8 oak_log\n] 20x")
    assert result.goal == Goal(
        "repair", "oak_log", None, 20, "[GOAL: repair\n8 oak_log\n]"
    )


def test_first_tag_wins_and_all_are_counted() -> None:
    text = "[GOAL: mine stone] and [goal: craft torch] and [GOAL: nonsense]"
    result = extract_goal_tag(text)
    assert result.goal is not None
    assert result.goal.action == "mine"
    assert result.tag_count == 3
    assert result.text == "and [goal: craft torch] and [GOAL: nonsense]"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no tag here", GoalFailReason.NO_TAG),
        ("[brackets] but [no goal]", GoalFailReason.NO_TAG),
        ("[GOAL: ]", GoalFailReason.EMPTY_INNER),
        ("[GOAL:]", GoalFailReason.EMPTY_INNER),
        ("[GOAL: dance wildly]", GoalFailReason.UNKNOWN_ACTION),
        ("[GOAL: 42 logs]", GoalFailReason.UNKNOWN_ACTION),
        ("[GOAL: collect]", GoalFailReason.NO_TARGET),
        ("[GOAL: mine 5]", GoalFailReason.NO_TARGET),
        ("[GOAL: mine 42 7]", GoalFailReason.NO_TARGET),
        ("[GOAL: mine amount=5]", GoalFailReason.NO_TARGET),
    ],
)
def test_fail_reasons_leave_text_untouched(text: str, reason: GoalFailReason) -> None:
    result = extract_goal_tag(text)
    assert result.goal is None
    assert result.fail_reason == reason
    assert result.text is text


@pytest.mark.parametrize("action", ["cancel", "pause", "resume", "prioritize"])
def test_task_list_actions_need_no_target(action: str) -> None:
    result = extract_goal_tag(f"[GOAL: {action}]")
    assert result.goal == Goal(action, "", None, None, f"[GOAL: {action}]")


def test_failed_tag_keeps_raw() -> None:
    result = extract_goal_tag("x [GOAL: dance] y")
    assert result.raw == "[GOAL: dance]"
    assert result.tag_count == 1


def test_id_alone_is_a_target_and_a_bare_id_is_a_word() -> None:
    result = extract_goal_tag("[GOAL: mine id=7]")
    assert result.goal == Goal("mine", "", "7", None, "[GOAL: mine id=7]")
    # "id=" with nothing after it is no id: the word "id".
    result = extract_goal_tag("[GOAL: find id= cow]")
    assert result.goal is not None
    assert (result.goal.target, result.goal.target_id) == ("id cow", None)


@pytest.mark.parametrize(
    ("tag", "amount"),
    [
        ("[GOAL: collect oak_log amount=5x]", 5),  # parseInt reads the digits
        ("[GOAL: collect oak_log amount=+5]", 5),
        ("[GOAL: collect oak_log amount=5 7]", 7),  # the later token wins
        ("[GOAL: collect oak_log 7 amount=5]", 5),
        ("[GOAL: collect oak_log amount=0005]", 5),
        ("[GOAL: collect oak_log amount=-5]", None),  # no quantity
        ("[GOAL: collect oak_log amount=1234567890]", None),
        ("[GOAL: collect oak_log 00000000012]", 12),
    ],
)
def test_amount_tokens(tag: str, amount: int | None) -> None:
    result = extract_goal_tag(tag)
    assert result.goal is not None
    assert result.goal.target == "oak_log"
    assert result.goal.amount == amount


def test_amount_that_does_not_parse_is_a_target_word() -> None:
    result = extract_goal_tag("[GOAL: collect oak_log amount=lots]")
    assert result.goal is not None
    assert (result.goal.target, result.goal.amount) == ("oak_log amountlots", None)


def test_a_negative_amount_lets_the_number_after_the_tag_count() -> None:
    result = extract_goal_tag("[GOAL: collect oak_log amount=-5] 3")
    assert result.goal is not None
    assert result.goal.amount == 3


def test_inner_one_short_of_the_scan_is_accepted() -> None:
    # The scan reads MAX_TAG_SCAN characters after the opener, "]" included.
    inner = " mine " + "a" * (MAX_TAG_SCAN - 7)
    assert len(inner) == MAX_TAG_SCAN - 1
    result = extract_goal_tag(f"[GOAL:{inner}] tail")
    assert result.goal is not None
    assert result.text == "tail"


def test_inner_as_long_as_the_scan_is_tag_too_long() -> None:
    inner = " mine " + "a" * (MAX_TAG_SCAN - 6)
    text = f"[GOAL:{inner}] tail\nnext line"
    result = extract_goal_tag(text)
    assert result.fail_reason == GoalFailReason.TAG_TOO_LONG
    assert result.goal is None
    assert result.text is text
    # The raw text runs to the end of the line, as the reference keeps it.
    assert result.raw == text[: text.index("\n")]


def test_scan_counts_utf16_code_units() -> None:
    # An emoji is two code units in JavaScript: 6 + 2 * 46 + 1 = 99 fit.
    inner = " mine " + "\U0001f600" * 46 + "a"
    assert extract_goal_tag(f"[GOAL:{inner}]").goal is not None
    inner = " mine " + "\U0001f600" * 47  # 100 code units, 53 characters
    result = extract_goal_tag(f"[GOAL:{inner}]")
    assert result.fail_reason == GoalFailReason.TAG_TOO_LONG


def test_unclosed_tag_without_a_later_bracket_runs_to_end_of_line() -> None:
    # No "]" anywhere after: not too long, whatever the line's length.
    result = extract_goal_tag("[GOAL: mine " + "a" * 200 + "\nrest")
    assert result.goal is not None
    assert result.goal.target == "a" * 200
    assert result.text == "rest"


def test_unclosed_tag_within_limit_at_end_of_text_is_not_too_long() -> None:
    result = extract_goal_tag("[GOAL: mine " + "a" * 80)
    assert result.goal is not None


_AFTER_TAG = re.compile("[" + JS_SPACE_CLASS + r"]*[0-9]+[A-Za-z0-9_]*")


@given(st.text())
def test_extraction_only_ever_removes_the_raw_tag(text: str) -> None:
    result = extract_goal_tag(text)
    if result.goal is None:
        assert result.text is text
    else:
        assert result.raw is not None
        opener = re.search(r"\[goal:", text, re.IGNORECASE | re.ASCII)
        assert opener is not None
        index = opener.start()
        end = index + len(result.raw)
        assert text[index:end] == result.raw
        after = _AFTER_TAG.match(text, end) if result.raw.endswith("]") else None
        if after is not None:
            end = after.end()
        assert result.text == (text[:index] + text[end:]).strip(JS_SPACE_CHARS)


@given(st.text(alphabet="[]GOALgoal: mine12\n", max_size=60))
def test_tag_count_counts_openers(text: str) -> None:
    assert extract_goal_tag(text).tag_count == text.lower().count("[goal:")


@pytest.mark.parametrize(
    ("action", "target", "key"),
    [
        ("collect", "oak_log", "collect:oak_log"),
        ("Collect", "Oak Log", "collect:oak_log"),
        ("navigate", "  to   the village ", "navigate:to_the_village"),
        ("mine", "iron--ore!!", "mine:iron_ore"),
        ("mine", "iron__ore", "mine:iron_ore"),
        ("pause", "", ""),
        ("", "oak_log", ""),
        ("mine", "!!!", ""),
    ],
)
def test_canonical_goal_key(action: str, target: str, key: str) -> None:
    assert canonical_goal_key(action, target) == key


def test_empty_goal_key_is_absent() -> None:
    assert goal_key_or_none("pause", "") is None
    assert goal_key_or_none("mine", "stone") == "mine:stone"


@given(st.text(), st.text())
def test_goal_key_is_never_the_empty_string_when_present(a: str, t: str) -> None:
    key = goal_key_or_none(a, t)
    assert key is None or (key and ":" in key)


def test_unknown_action_detail_lists_the_accepted_verbs() -> None:
    result = extract_goal_tag("[GOAL: kill cow 1]")
    assert result.fail_reason == GoalFailReason.UNKNOWN_ACTION
    detail = goal_fail_detail(result.fail_reason, result.raw)
    assert detail is not None
    assert detail.startswith("unknown goal action 'kill'; accepted actions: build, ")
    for action in CANONICAL_ACTIONS:
        assert action in detail
    for synonym, action in ACTION_NORMALIZE_MAP.items():
        assert f"{synonym} ({action})" in detail


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("no tag", None),
        ("[GOAL: mine stone]", None),
        ("[GOAL: ]", "the goal tag is empty"),
        ("[GOAL: mine]", "the goal names no target (only cancel, pause, resume "
         "and prioritize may go without one)"),
        ("[GOAL: mine " + "a" * 100 + "]", "no ']' within 100 characters after '[GOAL:'"),
    ],
)  # fmt: skip
def test_goal_fail_detail(text: str, detail: str | None) -> None:
    result = extract_goal_tag(text)
    assert goal_fail_detail(result.fail_reason, result.raw) == detail


def test_docs_list_the_accepted_actions() -> None:
    docs = (Path(__file__).resolve().parents[3] / "docs" / "stream.md").read_text()
    section = " ".join(docs.split("**Accepted goal actions.**", 1)[1].split())
    for action in CANONICAL_ACTIONS:
        assert f"`{action}`" in section
    for synonym, action in ACTION_NORMALIZE_MAP.items():
        assert f"{synonym} ({action})" in section
