"""Snippets: escaped text, only <mark> tags, around the first match."""

from __future__ import annotations

from search.core.query import parse
from search.core.snippets import snippet, wanted


def test_matches_are_marked_and_everything_else_escaped() -> None:
    html = snippet('A <b>Creeper</b> & "golem"', parse("creeper golem"))
    assert (
        html
        == "A &lt;b&gt;<mark>Creeper</mark>&lt;/b&gt; &amp; &quot;<mark>golem</mark>&quot;"
    )


def test_accents_prefixes_and_substrings_are_marked_in_the_original_text() -> None:
    html = snippet("Die Größe, crafting, Creeper", parse("grosse craft* *reep"))
    assert html == "Die <mark>Größe</mark>, <mark>crafting</mark>, <mark>Creeper</mark>"


def test_cjk_characters_are_marked_one_by_one() -> None:
    assert (
        snippet("苦力怕在村庄", parse("村庄"))
        == "苦力怕在<mark>村</mark><mark>庄</mark>"
    )


def test_excluded_words_are_not_marked() -> None:
    assert (
        snippet("creeper night", parse("creeper -night"))
        == "<mark>creeper</mark> night"
    )


def test_a_long_text_is_cut_around_the_first_match() -> None:
    text = "filler " * 100 + "creeper" + " tail" * 100
    html = snippet(text, parse("creeper"), width=60)
    assert html.startswith("\u2026") and html.endswith("\u2026")
    assert "<mark>creeper</mark>" in html
    assert len(html) < 120


def test_no_match_shows_the_start() -> None:
    assert snippet("exploded loudly", parse("explode")) == "exploded loudly"


def test_wanted_collects_positive_terms_only() -> None:
    want = wanted(parse('a "b c" d* *efg -h'))
    assert want.exact == {"a", "b", "c"}
    assert want.prefixes == ("d",)
    assert want.parts == ("efg",)
