"""Documents as stored: clean text, flags, titles."""

from __future__ import annotations

from search.core.documents import MAX_TEXT_CHARS, Doc, clean, flags_field, title_of
from tests.builders import T0


def test_text_loses_nul_and_lone_surrogates_and_is_bounded() -> None:
    assert clean("a\x00b\ud800c") == "ab?c"
    doc = Doc(kind="thought", ref="1", text="x " * MAX_TEXT_CHARS, created_at=T0)
    assert len(doc.stored_text) == MAX_TEXT_CHARS
    assert doc.terms.startswith("x x")


def test_flags_are_single_lower_case_words_between_spaces() -> None:
    assert flags_field(["Ungrounded", "failed", "two words", "failed"]) == (
        " ungrounded failed two-words "
    )
    assert flags_field([]) == ""


def test_title_is_the_first_line_cut_short() -> None:
    assert title_of("  hello\n world  ") == "hello world"
    assert title_of("x" * 100, limit=10) == "x" * 9 + "\u2026"
