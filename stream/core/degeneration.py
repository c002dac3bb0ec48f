"""Degeneration: cut a completion where it starts repeating itself.

The sanitizer's ``truncate_degeneration`` stage (``stream.core.sanitizer``),
the reference rule: the text is split into words at whitespace, compared
case-insensitively; four identical words in a row, or (in a text of nine or
more words) a word trigram occurring a third time, cut the text, which is
rejoined with single spaces and marked with ``...``. Linear in its input;
only the first ``MAX_SCAN_WORDS`` words are examined.
"""

from __future__ import annotations

import re
from itertools import islice
from operator import eq
from typing import Final

from core.whitespace import JS_SPACE_CLASS

MIN_REPEATED_WORDS: Final = 4
MIN_TRIGRAM_WORDS: Final = 9
# Repetition is looked for in the first words only: a bounded scan like the
# goal tag's. 20,000 words is ~30x the longest completion a sampler allows.
MAX_SCAN_WORDS: Final = 20_000
ELLIPSIS: Final = "..."
_SPACE_RUN = re.compile("[" + JS_SPACE_CLASS + "]+")


def _repeated_word_index(words: list[str]) -> int | None:
    """Index of the first of four identical consecutive words, or None."""
    same = bytes(map(eq, words, islice(words, 1, None)))
    found = same.find(b"\x01" * (MIN_REPEATED_WORDS - 1))
    return None if found == -1 else found


def _third_trigram_index(words: list[str]) -> int | None:
    """Where the first trigram to occur three times occurs the third time.

    "First" is by first occurrence, as the reference walks its trigrams in
    insertion order: of the trigrams seen three times, the one seen earliest.
    """
    if len(words) - len(set(words)) < 2:
        # A trigram seen three times needs a word seen three times.
        return None
    counts: dict[tuple[str, str, str], int] = {}
    firsts: dict[tuple[str, str, str], int] = {}
    thirds: dict[tuple[str, str, str], int] = {}
    for index, trigram in enumerate(zip(words, words[1:], words[2:], strict=False)):
        times = counts.get(trigram, 0) + 1
        counts[trigram] = times
        if times == 1:
            firsts[trigram] = index
        elif times == 3:
            thirds[trigram] = index
    if not thirds:
        return None
    return thirds[min(thirds, key=firsts.__getitem__)]


def truncate_degeneration(text: str) -> str:
    """Cut repetitive output and mark the cut with ``...``.

    Words are what ``text.split(/\\s+/)`` gives in JavaScript (an empty
    first or last word where the text starts or ends with whitespace).
    Four or more identical consecutive words: keep up to the end of the
    second one. Otherwise, in a text of nine or more words, the first trigram
    to occur three times: cut right before its third occurrence. The kept
    words are joined by one space. Only the first ``MAX_SCAN_WORDS`` words
    are examined.
    """
    words = _SPACE_RUN.split(text, MAX_SCAN_WORDS)
    if len(words) > MAX_SCAN_WORDS:
        del words[MAX_SCAN_WORDS:]  # the unsplit rest is not examined
    if len(words) < MIN_REPEATED_WORDS:
        return text
    # Lowering creates and removes no whitespace: the same words, lowered.
    lowered = _SPACE_RUN.split(text.lower(), len(words))[: len(words)]
    if len(set(lowered)) == len(lowered):
        return text  # no word twice: neither rule can apply
    cut = _repeated_word_index(lowered)
    if cut is not None:
        cut += 2
    elif len(words) >= MIN_TRIGRAM_WORDS:
        cut = _third_trigram_index(lowered)
    if cut is None:
        return text
    return " ".join(words[:cut]) + ELLIPSIS
