"""The query language: what parses, what is refused with the field ``q``,
and what each database is asked."""

from __future__ import annotations

import pytest

from search.core.query import (
    MAX_QUERY_CHARS,
    MAX_QUERY_TERMS,
    QueryInvalid,
    Term,
    fts5_match,
    parse,
    plain_words,
    tsquery_literal,
)


def test_words_phrases_prefixes_substrings_exclusions_and_or() -> None:
    query = parse('creeper "iron golem" crafti* -night *reep OR zombie')
    first, second = query.groups
    assert first.terms == (
        Term(words=("creeper",)),
        Term(words=("iron", "golem")),
        Term(words=("crafti",), prefix=True),
        Term(words=("night",), negated=True),
        Term(substring="reep"),
    )
    assert second.terms == (Term(words=("zombie",)),)


def test_a_word_of_several_terms_is_their_phrase() -> None:
    assert parse("foo-bar*").groups[0].terms == (
        Term(words=("foo", "bar"), prefix=True),
    )
    assert parse("世界").groups[0].terms == (Term(words=("世", "界")),)


def test_an_unclosed_quote_runs_to_the_end() -> None:
    assert parse('"iron golem').groups[0].terms == (Term(words=("iron", "golem")),)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        '""',
        "* - OR |",
        "OR",
        "!!! ??? ...",
        "\x00\x00",
        "-",
        "*",
        "**",
        '"*"',
    ],
)
def test_a_query_with_nothing_to_find_is_refused_naming_q(text: str) -> None:
    with pytest.raises(QueryInvalid) as caught:
        parse(text)
    assert caught.value.field == "q"
    assert "no word to look for" in caught.value.reason


def test_only_exclusions_are_refused() -> None:
    with pytest.raises(QueryInvalid, match="need a word to look for"):
        parse("-creeper -zombie")
    with pytest.raises(QueryInvalid, match="need a word to look for"):
        parse("creeper OR -zombie")


def test_a_short_substring_is_refused() -> None:
    with pytest.raises(QueryInvalid, match="at least 3"):
        parse("*ab")


def test_too_long_or_too_many_words_are_refused() -> None:
    with pytest.raises(QueryInvalid, match=f"at most {MAX_QUERY_CHARS} characters"):
        parse("a" * (MAX_QUERY_CHARS + 1))
    with pytest.raises(QueryInvalid, match=f"at most {MAX_QUERY_TERMS} words"):
        parse(" ".join(f"w{i}" for i in range(MAX_QUERY_TERMS + 1)))


def test_nul_bytes_are_separators() -> None:
    assert parse("creeper\x00zombie").groups[0].terms == (
        Term(words=("creeper",)),
        Term(words=("zombie",)),
    )


def test_fts5_expression_quotes_every_phrase() -> None:
    group = parse('and "iron gol"* not').groups[0]
    assert fts5_match(group.positive) == '"and" AND "iron gol" * AND "not"'
    assert fts5_match(parse("a -b -c").groups[0].negative, any_of=True) == '"b" OR "c"'
    assert fts5_match(parse("*abc").groups[0].positive) is None


def test_tsquery_literal_with_phrases_prefixes_and_stems() -> None:
    group = parse('creepers "iron gol"* it\'s').groups[0]
    literal = tsquery_literal(group.positive, stems={"creepers": "creeper"})
    assert literal == "('creepers' | 'creeper') & ('iron' <-> 'gol':*) & ('it' <-> 's')"


def test_plain_words_are_the_stemmable_ones() -> None:
    assert plain_words(parse('creepers craft* "iron golem" *abc')) == {"creepers"}
