"""The sanitizer pipeline: raw model output -> clean thought + what it declared.

Stages run in the exact order of seed 004 §2.4::

    strip_code_fences -> strip_wrapping_quotes -> strip_system_prompt_leaks
      -> extract_goal_tag -> extract_intent -> truncate_degeneration
      -> strip_trailing_garbage -> normalize_whitespace

Invariants:

- Deterministic and pure; every stage is linear in its input (only ``str``
  methods and regexes without nested or overlapping quantifiers), so no input
  can make a stage slow.
- The output is never longer than the input plus the 3 characters of the
  ``...`` that degeneration truncation appends; ``INTENT:`` never survives.
- Line structure is kept (Contract B): only horizontal whitespace is
  collapsed; at most one blank line separates paragraphs.
- ``flags`` name exactly the stages that changed the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import compress, count, islice
from operator import eq, ne
from typing import Final

from stream.core.goals import extract_goal_tag, goal_key_or_none
from stream.core.intent import INTENT_TOKEN, extract_intent
from stream.core.types import GoalFailReason, SanitizeResult

# --- code fences -------------------------------------------------------------

# An opening fence's language tag: only when the tag ends the fence's line.
# The literal "```" prefix lets the regex engine skip ahead; the possessive
# classes are disjoint, so a failed attempt costs one step per character.
_FENCE_TAG = re.compile(r"```[A-Za-z0-9_+.#-]++[ \t]*+(?=\n)")
FENCE: Final = "```"


def strip_code_fences(text: str) -> str:
    """Remove triple-backtick fences (and an opening fence's language tag).

    The fenced text itself is kept. Of a longer backtick run, whole triples
    are removed, so no ``` survives.
    """
    if FENCE not in text:
        return text
    return _FENCE_TAG.sub("", text).replace(FENCE, "")


# --- wrapping quotes ---------------------------------------------------------

_QUOTE_PAIRS: Final = {
    '"': '"',
    "'": "'",
    "`": "`",
    "\u201c": "\u201d",
    "\u2018": "\u2019",
    "\u00ab": "\u00bb",
}


def _unwrap_once(text: str) -> str:
    body = text.strip()
    if len(body) < 2:
        return text
    closing = _QUOTE_PAIRS.get(body[0])
    # Only a pair that wraps the whole text: '"a" and "b"' stays as it is.
    if closing is None or body[-1] != closing or closing in body[1:-1]:
        return text
    return body[1:-1]


def strip_wrapping_quotes(text: str) -> str:
    """Remove quotes wrapping the whole text, up to two levels."""
    return _unwrap_once(_unwrap_once(text))


# --- system prompt leaks -----------------------------------------------------

LEAK_PREFIXES: Final = (
    "You are my private inner thought",
    "You are an agent",
    "Write exactly one or two short sentences",
    "Say what I notice",
    "Use names that appear in the situation",
    "Only if I'm committing to a concrete action",
)

# One or more leaked sentences at the start: a prefix (any case), the rest of
# its sentence (a boundary is [.!?] before whitespace/end, or a newline), then
# everything up to the first capital letter, where "[" before a capital counts
# as the start (a goal tag after a leak is the model's own). Possessive
# quantifiers over disjoint classes: a single linear pass.
_LEAK_RUN = re.compile(
    r"(?:\s*+(?i:"
    + "|".join(re.escape(p) for p in LEAK_PREFIXES)
    + r")[^\n.!?]*+(?:[.!?]++(?!\s|\Z)[^\n.!?]*+)*+[.!?\n]?"
    + r"(?:[^A-Z\[]|\[(?![A-Z]))*+)+"
)


def strip_system_prompt_leaks(text: str) -> str:
    """Cut leaked prompt sentences from the start of ``text``.

    A leak starts with one of ``LEAK_PREFIXES`` (case-insensitive); the text is
    cut to the first capital letter after the leak's sentence boundary (or to
    a ``[`` right before one, so a following ``[GOAL: ...]`` survives), and
    again while the next sentence is a leak too. Nothing left -> ``''``.
    """
    match = _LEAK_RUN.match(text)
    if match is None:
        return text
    return text[match.end() :]


# --- degeneration ------------------------------------------------------------

_PUNCT: Final = ".,;:!?"
MIN_REPEATED_WORDS: Final = 4
MIN_TRIGRAM_WORDS: Final = 9
# Repetition is looked for in the first words only: a bounded scan like the
# goal tag's. 20,000 words is ~30x the longest completion a sampler allows.
MAX_SCAN_WORDS: Final = 20_000
_SHORT_WORDS: Final = 64
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


def _third_trigram_index(words: list[str]) -> int | None:
    """Index of the earliest third occurrence of a word trigram, or None.

    Built from C-level iterators (dict, map, compress) rather than a Python
    loop, for long inputs: positions that are not a trigram's first
    occurrence are repeats, and repeats that are not a trigram's first repeat
    are third occurrences.
    """
    if len(words) <= _SHORT_WORDS:
        return _third_trigram_short(words)
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


def _cut(text: str, end: int) -> str:
    return text[:end].rstrip().rstrip(_PUNCT + "-").rstrip() + ELLIPSIS


def truncate_degeneration(text: str) -> str:
    """Cut repetitive output and mark the cut with ``...``.

    Words are runs of characters other than whitespace and [.,;:!?], compared
    case-insensitively. Four or more identical consecutive words: keep up to
    the end of the second one. Else, in a text of nine or more words, a word
    trigram occurring a third time: cut right before that occurrence. Only
    the first ``MAX_SCAN_WORDS`` words are examined.
    """
    comparable = _comparable(text)
    words = comparable.lower().split(None, MAX_SCAN_WORDS)
    if len(words) > MAX_SCAN_WORDS:
        del words[MAX_SCAN_WORDS:]
    if len(words) < MIN_REPEATED_WORDS:
        return text
    repeated = _repeated_word_index(words)
    if repeated is not None:
        start = _word_start(comparable, repeated + 1)
        return _cut(text, start + len(comparable[start:].split(None, 1)[0]))
    if len(words) < MIN_TRIGRAM_WORDS:
        return text
    third = _third_trigram_index(words)
    if third is None:
        return text
    return _cut(text, _word_start(comparable, third))


# --- trailing garbage --------------------------------------------------------

_END_CHARS: Final = (".", "!", "?", "\u2026")
_CLOSERS: Final = "\"')]\u201d\u2019"
MAX_FRAGMENT_WORDS: Final = 4


def _is_ended(text: str) -> bool:
    # A bracketed token ("[GOAL: dance]") is complete, not a cut-off sentence.
    return text.endswith("]") or text.rstrip(_CLOSERS).endswith(_END_CHARS)


def strip_trailing_garbage(text: str) -> str:
    """Drop a trailing standalone number and a dangling final fragment.

    A number is standalone when it follows the end of a sentence or stands on
    its own line. A final fragment is what follows the last sentence end
    (``.``, ``!``, ``?`` or ``…``, closing quotes allowed, before whitespace)
    when it has fewer than five words and no end punctuation; it is dropped
    only when text precedes it. Only the last five words are inspected
    (``rsplit``), so the cost does not depend on what comes before them.
    """
    body = text.rstrip()
    if not body:
        return text
    last = body.rsplit(None, 1)
    if len(last) == 2 and last[1].isascii() and last[1].isdigit():
        head = body[: len(body) - len(last[1])]
        previous = head.rstrip()
        if "\n" in head[len(previous) :] or _is_ended(previous):
            body = previous
    if body and not _is_ended(body):
        for words in range(1, MAX_FRAGMENT_WORDS + 1):
            parts = body.rsplit(None, words)
            if len(parts) <= words:
                break
            if _is_ended(parts[0]):
                body = parts[0]
                break
    return text if body == text.rstrip() else body


# --- whitespace --------------------------------------------------------------

# Stand-ins for "\n" while every other whitespace run is collapsed; the first
# one absent from the text is used, so no input character is ever changed.
_LINE_MARKS: Final = tuple(chr(c) for c in (*range(0x00, 0x09), *range(0x0E, 0x1C)))
# Every whitespace character str.split() knows, except " " and "\n".
_OTHER_SPACES: Final = tuple(
    c for c in map(chr, range(0x3001)) if c.isspace() and c not in " \n"
)
# Above this length, checking first is cheaper than rebuilding tidy text.
_LONG: Final = 4096
_UNTIDY: Final = ("  ", " \n", "\n ", "\n\n\n")


def _is_tidy(text: str) -> bool:
    """True when normalize_whitespace would return ``text`` unchanged."""
    if not text or text[0] in " \n" or text[-1] in " \n":
        return not text
    if any(pattern in text for pattern in _UNTIDY):
        return False
    return not any(c in text for c in _OTHER_SPACES)


def normalize_whitespace(text: str) -> str:
    """Collapse horizontal whitespace, trim lines, keep at most one blank line.

    Newlines are kept (Contract B); ``\\r\\n`` and ``\\r`` become ``\\n``;
    other whitespace characters become single spaces. Built on ``str.split``
    and ``str.replace`` (linear, no per-character Python code).
    """
    if len(text) > _LONG and _is_tidy(text):
        return text
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\n" not in text:
        return " ".join(text.split())
    mark = next((m for m in _LINE_MARKS if m not in text), None)
    if mark is None:  # every stand-in occurs: only hostile input gets here
        lines = (" ".join(line.split()) for line in text.split("\n"))
        out = "\n".join(lines).strip("\n")
        while "\n\n\n" in out:
            out = out.replace("\n\n\n", "\n\n")
        return out
    out = " ".join(text.replace("\n", mark).split())
    out = out.replace(" " + mark, mark).replace(mark + " ", mark).strip(mark + " ")
    triple = mark * 3
    while triple in out:
        out = out.replace(triple, mark * 2)
    return out.replace(mark, "\n")


# --- the pipeline --------------------------------------------------------------

# (name, stage) in pipeline order, for callers that measure or test stages.
STAGE_FUNCTIONS: Final[tuple[tuple[str, Callable[[str], str]], ...]] = (
    ("code_fences", strip_code_fences),
    ("wrapping_quotes", strip_wrapping_quotes),
    ("prompt_leaks", strip_system_prompt_leaks),
    ("goal_tag", lambda text: extract_goal_tag(text).text),
    ("intent", lambda text: extract_intent(text).text),
    ("degeneration", truncate_degeneration),
    ("trailing_garbage", strip_trailing_garbage),
    ("whitespace", normalize_whitespace),
)
STAGES: Final = tuple(name for name, _ in STAGE_FUNCTIONS)


def sanitize(text: str) -> SanitizeResult:
    """Run every stage in seed order and collect what they extracted.

    Deterministic; never raises for any string. ``goal_key`` is ``None`` when
    there is no goal or its canonical key would be empty.
    """
    # Stages are called inline, and the goal/INTENT parsers skipped when their
    # marker is absent: this is the hot path of every published thought.
    flags: list[str] = []
    out = strip_code_fences(text)
    if out != text:
        flags.append("code_fences")
        text = out
    out = strip_wrapping_quotes(text)
    if out != text:
        flags.append("wrapping_quotes")
        text = out
    out = strip_system_prompt_leaks(text)
    if out != text:
        flags.append("prompt_leaks")
        text = out
    goal = None
    goal_fail_reason: GoalFailReason | None = GoalFailReason.NO_TAG
    goal_tag_count = 0
    if "[" in text:
        extraction = extract_goal_tag(text)
        goal = extraction.goal
        goal_fail_reason = extraction.fail_reason
        goal_tag_count = extraction.tag_count
        if extraction.text != text:
            flags.append("goal_tag")
            text = extraction.text
    intent = None
    intent_parse = None
    if INTENT_TOKEN in text:
        extracted = extract_intent(text)
        intent = extracted.intent
        intent_parse = extracted.intent_parse
        if extracted.text != text:
            flags.append("intent")
            text = extracted.text
    out = truncate_degeneration(text)
    if out != text:
        flags.append("degeneration")
        text = out
    out = strip_trailing_garbage(text)
    if out != text:
        flags.append("trailing_garbage")
        text = out
    out = normalize_whitespace(text)
    if out != text:
        flags.append("whitespace")
        text = out
    return SanitizeResult(
        text=text,
        goal=goal,
        goal_fail_reason=goal_fail_reason,
        goal_tag_count=goal_tag_count,
        goal_key=goal_key_or_none(goal.action, goal.target) if goal else None,
        intent=intent,
        intent_parse=intent_parse,
        flags=tuple(flags),
    )
