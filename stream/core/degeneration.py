"""Degeneration: cut a completion where it starts repeating itself.

The sanitizer's ``truncate_degeneration`` stage (``stream.core.sanitizer``):
a word repeated ``MIN_REPEATED_WORDS`` or more times in a row, or a word
trigram occurring a third time, cuts the text and the cut is marked with
``...``. Linear in its input; only the first ``MAX_SCAN_WORDS`` words are
examined.
"""

from __future__ import annotations

from itertools import compress, count, islice
from operator import eq, ne
from typing import Final

_PUNCT: Final = ".,;:!?"
MIN_REPEATED_WORDS: Final = 4
MIN_TRIGRAM_WORDS: Final = 9
# Repetition is looked for in the first words only: a bounded scan like the
# goal tag's. 20,000 words is ~30x the longest completion a sampler allows.
MAX_SCAN_WORDS: Final = 20_000
_SHORT_WORDS: Final = 64
_FIRST_PREFIX: Final = 256
ELLIPSIS: Final = "..."


def _comparable(text: str) -> str:
    """``text`` with [.,;:!?] as spaces: same length, so word offsets match."""
    for mark in _PUNCT:
        if mark in text:
            text = text.replace(mark, " ")
    return text


def _word_start(comparable: str, index: int) -> int:
    """Offset of word ``index`` (0-based) in ``comparable``."""
    rest = comparable.split(None, index)[-1]
    return len(comparable) - len(rest)


def _repeated_word_index(words: list[str]) -> int | None:
    """Index of the first of four identical consecutive words, or None."""
    same = bytes(map(eq, words, islice(words, 1, None)))
    found = same.find(b"\x01" * (MIN_REPEATED_WORDS - 1))
    return None if found == -1 else found


def _third_trigram_short(words: list[str]) -> int | None:
    """``_third_trigram_index`` as a plain loop: cheaper for a few dozen words."""
    if len(words) - len(set(words)) < 2:
        # A trigram seen three times needs a word seen three times.
        return None
    seen: dict[tuple[str, str, str], int] = {}
    for index in range(len(words) - 2):
        trigram = (words[index], words[index + 1], words[index + 2])
        times = seen.get(trigram, 0) + 1
        if times == 3:
            return index
        seen[trigram] = times
    return None


def _third_trigram_bulk(words: list[str]) -> int | None:
    """``_third_trigram_short`` from C-level iterators (dict, map, compress).

    Positions that are not a trigram's first occurrence are repeats, and
    repeats that are not a trigram's first repeat are third occurrences.
    """
    trigrams = list(zip(words, words[1:], words[2:], strict=False))
    first = dict(zip(reversed(trigrams), range(len(trigrams) - 1, -1, -1), strict=True))
    repeats = list(
        compress(count(), map(ne, map(first.__getitem__, trigrams), count()))
    )
    if len(repeats) < 2:
        return None
    repeated = list(map(trigrams.__getitem__, repeats))
    second = dict(zip(reversed(repeated), reversed(repeats), strict=True))
    thirds = compress(repeats, map(ne, map(second.__getitem__, repeated), repeats))
    return next(thirds, None)


def _third_trigram_index(words: list[str]) -> int | None:
    """Index of the earliest third occurrence of a word trigram, or None.

    Growing prefixes are searched, so a loop early in a long text is found
    without indexing the rest: an occurrence found inside a prefix is the
    earliest overall, because nothing after the prefix can precede it.
    """
    if len(words) <= _SHORT_WORDS:
        return _third_trigram_short(words)
    size = _FIRST_PREFIX
    while size < len(words):
        found = _third_trigram_bulk(words[:size])
        if found is not None:
            return found
        size *= 8
    return _third_trigram_bulk(words)


def _cut(text: str, end: int) -> str:
    return text[:end].rstrip().rstrip(_PUNCT + "-").rstrip() + ELLIPSIS


def truncate_degeneration(text: str) -> str:
    """Cut repetitive output and mark the cut with ``...``.

    Words are runs of characters other than whitespace and [.,;:!?], compared
    case-insensitively. Four or more identical consecutive words: keep up to
    the end of the second one. In a text of nine or more words, a word
    trigram occurring a third time: cut right before that occurrence. When
    both apply, the earlier cut wins (so the result has neither and a second
    pass changes nothing). Only the first ``MAX_SCAN_WORDS`` words are
    examined.
    """
    # Only the first MAX_SCAN_WORDS words are examined, so only the prefix
    # holding them is transformed: punctuation-as-space can only add words,
    # so the prefix of MAX_SCAN_WORDS whitespace-separated words is enough.
    rest = text.split(None, MAX_SCAN_WORDS)
    prefix_end = len(text) - len(rest[-1]) if len(rest) > MAX_SCAN_WORDS else len(text)
    comparable = _comparable(text[:prefix_end])
    words = comparable.lower().split(None, MAX_SCAN_WORDS)
    if len(words) > MAX_SCAN_WORDS:
        del words[MAX_SCAN_WORDS:]
    if len(words) < MIN_REPEATED_WORDS:
        return text
    cuts = []
    repeated = _repeated_word_index(words)
    if repeated is not None:
        start = _word_start(comparable, repeated + 1)
        cuts.append(start + len(comparable[start:].split(None, 1)[0]))
    if len(words) >= MIN_TRIGRAM_WORDS:
        # A trigram cut after the repeated-word cut cannot win: look before it.
        scope = words if repeated is None else words[: repeated + 4]
        third = _third_trigram_index(scope)
        if third is not None:
            cuts.append(_word_start(comparable, third))
    return _cut(text, min(cuts)) if cuts else text
