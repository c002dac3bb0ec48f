"""INTENT extraction (the agency contract §2.2, §2.3, §6.2): two passes, fail closed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stream.core.intent import VALID_INTENTS, extract_intent, strip_inline_intent
from stream.core.types import IntentParse


def test_valid_intents() -> None:
    assert sorted(VALID_INTENTS) == [
        "craft", "explore", "food", "gather", "mine", "navigate", "none", "shelter",
    ]  # fmt: skip


def test_final_line_is_compliant_and_removed() -> None:
    result = extract_intent("I see a cow.\nINTENT: food\n\n")
    assert result.text == "I see a cow."
    assert result.intent == "food"
    assert result.intent_parse == IntentParse.FINAL_LINE


def test_final_line_label_is_case_insensitive() -> None:
    result = extract_intent("Quiet.\n  INTENT:  Explore ")
    assert (result.text, result.intent) == ("Quiet.", "explore")
    assert result.intent_parse == IntentParse.FINAL_LINE


def test_final_line_is_only_the_token_and_one_word() -> None:
    # The reference's rule: anything more on the line makes it inline, and
    # only the token and its word go.
    result = extract_intent("Quiet.\n  INTENT:  Explore. ")
    assert (result.text, result.intent) == ("Quiet.\n.", "explore")
    assert result.intent_parse == IntentParse.INLINE_NONCOMPLIANT


def test_none_is_a_label_not_an_absence() -> None:
    result = extract_intent("Quiet.\nINTENT: none")
    assert result.intent == "none"
    assert result.intent_parse == IntentParse.FINAL_LINE


def test_unknown_final_label_is_stripped_and_null() -> None:
    result = extract_intent("Quiet.\nINTENT: conquer")
    assert (result.text, result.intent) == ("Quiet.", None)
    assert result.intent_parse == IntentParse.FINAL_LINE


def test_inline_token_is_noncompliant_and_stripped() -> None:
    result = extract_intent("I will INTENT: explore the cave.\nNext line.")
    # The horizontal whitespace before the token goes with it.
    assert result.text == "I will the cave.\nNext line."
    assert result.intent == "explore"
    assert result.intent_parse == IntentParse.INLINE_NONCOMPLIANT


def test_inline_takes_the_first_occurrence_label() -> None:
    result = extract_intent("INTENT: mine a. INTENT: food b.")
    assert result.intent == "mine"
    assert "INTENT" not in result.text


def test_inline_unknown_label_is_null() -> None:
    result = extract_intent("so INTENT: world_domination now")
    assert result.intent is None
    assert result.intent_parse == IntentParse.INLINE_NONCOMPLIANT
    assert result.text == "so now"


def test_final_line_wins_and_inline_tokens_are_still_stripped() -> None:
    result = extract_intent("Go INTENT: mine now.\nINTENT: shelter")
    assert result.text == "Go now."
    assert result.intent == "shelter"
    assert result.intent_parse == IntentParse.FINAL_LINE


def test_last_line_with_more_text_is_inline() -> None:
    result = extract_intent("Done. INTENT: explore")
    assert result.intent_parse == IntentParse.INLINE_NONCOMPLIANT
    assert result.text == "Done."


def test_no_token_means_no_intent_and_same_text() -> None:
    text = "My plan: rest."
    result = extract_intent(text)
    assert (result.text, result.intent, result.intent_parse) == (text, None, None)


def test_the_token_is_case_insensitive_on_the_final_line() -> None:
    result = extract_intent("Thought.\nintent: explore")
    assert (result.text, result.intent, result.intent_parse) == (
        "Thought.",
        "explore",
        IntentParse.FINAL_LINE,
    )


def test_the_token_is_case_insensitive_inline() -> None:
    result = extract_intent("My Intent: rest now.")
    assert result.intent_parse == IntentParse.INLINE_NONCOMPLIANT
    assert "intent" not in result.text.lower()


@pytest.mark.parametrize(
    "text",
    ["INTENTINTENT::", "INTENTINTENT: a:", "INTINTENT: xENT: y", "INTENT INTENT:"],
)
def test_removal_never_forms_a_new_token(text: str) -> None:
    assert "INTENT:" not in extract_intent(text).text


@given(st.text(alphabet="INTENT: \nabx.", max_size=80))
def test_intent_token_never_survives(text: str) -> None:
    assert "INTENT:" not in extract_intent(text).text


@given(st.text(alphabet=st.sampled_from(list("INTE: \n\tab")), max_size=80))
def test_inline_strip_preserves_every_newline(text: str) -> None:
    # Framed by "." (never removed), so the final trim reaches no newline.
    stripped, _ = strip_inline_intent(f".{text}.")
    assert stripped.count("\n") == text.count("\n")


def test_a_token_without_a_word_is_removed_too() -> None:
    # The reference leaves "INTENT:" when no word follows; the contract says
    # the token never survives.
    result = extract_intent("Thought.\nINTENT:")
    assert (result.text, result.intent) == ("Thought.", None)
    assert result.intent_parse == IntentParse.INLINE_NONCOMPLIANT


def test_only_whitespace_is_no_intent_parse() -> None:
    # The reference reports inline_noncompliant for "a  b" (its strip also
    # collapses spaces, and it compares texts); no token, no parse here.
    result = extract_intent("a  b ")
    assert (result.text, result.intent_parse) == ("a  b ", None)


@given(st.text(alphabet="INTENT: \nfoodx", max_size=60))
def test_unknown_labels_are_never_promoted(text: str) -> None:
    intent = extract_intent(text).intent
    assert intent is None or intent in VALID_INTENTS
