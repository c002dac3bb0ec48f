"""Text becomes the same terms for every database."""

from __future__ import annotations

from search.core.text import MAX_TERM_CHARS, fold, terms, terms_text, tsvector_literal


def test_case_and_accents_fold_away() -> None:
    assert terms("Größe CAFÉ naïve Ёлка") == ["grosse", "cafe", "naive", "елка"]


def test_punctuation_splits_words() -> None:
    assert terms("goal:collect:oak_log — INTENT{craft(pickaxe)}") == [
        "goal", "collect", "oak", "log", "intent", "craft", "pickaxe",
    ]  # fmt: skip


def test_each_cjk_character_is_a_term() -> None:
    assert terms("苦力怕x村") == ["苦", "力", "怕", "x", "村"]


def test_nul_and_control_characters_separate_words() -> None:
    assert terms("a\x00b\tc\nd") == ["a", "b", "c", "d"]


def test_compatibility_forms_are_normalised() -> None:
    assert fold("ﬁ") == "fi"
    assert terms("ＡＢＣ") == ["abc"]


def test_long_terms_are_cut_and_term_count_is_bounded() -> None:
    assert terms("x" * 500) == ["x" * MAX_TERM_CHARS]
    assert len(terms("a " * 50, limit=10)) == 10


def test_terms_text_joins_with_single_spaces() -> None:
    assert terms_text("  Hello,   World!  ") == "hello world"


def test_tsvector_literal_keeps_positions_and_quotes() -> None:
    assert tsvector_literal(["b", "a", "b"]) == "'b':1,3 'a':2"
    assert tsvector_literal(["it's"]) == "'it''s':1"
