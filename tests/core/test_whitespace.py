"""Collapsing JavaScript whitespace: the C paths give the regex's answer.

The reference is JavaScript's ``text.replace(/\\s+/g, " ").trim()`` written
as a Python regex over the same class. The strategies lean on the characters
where Python's and JavaScript's whitespace differ (U+001C-U+001F and U+0085
are space only to Python, U+FEFF only to JavaScript), on lone surrogates and
on non-ASCII text, which each take a different path.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.whitespace import JS_SPACE_CHARS, JS_SPACE_CLASS, collapse_js_whitespace

_RUN = re.compile(f"[{JS_SPACE_CLASS}]+")


def reference(text: str) -> str:
    return _RUN.sub(" ", text).strip(JS_SPACE_CHARS)


def test_the_class_and_the_characters_name_the_same_set() -> None:
    assert _RUN.fullmatch(JS_SPACE_CHARS)
    assert len(set(JS_SPACE_CHARS)) == len(JS_SPACE_CHARS) == 25
    assert {c for c in map(chr, range(0x3001)) if _RUN.fullmatch(c)} == set(
        JS_SPACE_CHARS
    ) - {"\ufeff"}


_edge = st.sampled_from(
    [*JS_SPACE_CHARS, "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\x00", "\ud800"]
    + ["\udfff", "a", "é", "猫", "😀", "\u200b", "\u180e", "\x7f"]
)


# Slow by design: 1500 generated texts; edge characters need many examples.
@settings(max_examples=1500)
@given(st.lists(_edge | st.text(max_size=3), max_size=12).map("".join))
def test_collapse_is_the_regex_collapse(text: str) -> None:
    assert collapse_js_whitespace(text) == reference(text)


@given(st.text())
def test_collapse_of_any_text_is_the_regex_collapse(text: str) -> None:
    assert collapse_js_whitespace(text) == reference(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "a",
        " \t a \n\n b \r\n",
        "a\x1cb \x1c c",  # ASCII, a character only Python splits on
        "\ufeffé\ufeff é",  # a space only to JavaScript
        "é\x85 \xa0 x",  # non-ASCII with U+0085
        "\ud800 \x85\u3000\udfff",  # a lone surrogate: the regex path
        "é \u2028\u2029 e",
    ],
)
def test_collapse_of_each_path(text: str) -> None:
    assert collapse_js_whitespace(text) == reference(text)
