"""The sanitizer pipeline: raw model output -> clean thought + what it declared.

Stages run in the exact order of the agency contract §2.4::

    strip_code_fences -> strip_wrapping_quotes -> strip_system_prompt_leaks
      -> extract_goal_tag -> extract_intent -> truncate_degeneration
      -> strip_trailing_garbage -> normalize_whitespace

Invariants:

- Deterministic and pure; every stage is linear in its input (only ``str``
  methods and regexes without nested or overlapping quantifiers), so no input
  can make a stage slow.
- The output is never longer than the input plus the 3 characters of the
  ``...`` that degeneration truncation appends; ``INTENT:`` never survives.
- Line structure is kept through INTENT extraction (Contract B: the INTENT
  stages never remove a newline), then the whitespace stage collapses every
  whitespace run, newlines included, to one space as the reference pipeline
  does.
- ``flags`` name exactly the stages that changed the text (the quote stage
  only when it removed a quote, not for its trim).
- Each rule is the reference sanitizer's, except the documented fixes of its
  bugs (docs/stream.md, checked line by line against the reference's output
  by the differential test): ``_number_is_standalone``,
  ``_last_sentence_end`` here, INTENT leftovers, amounts that are no
  quantity.
- A second pass changes nothing, except where a rule is single-shot by
  contract (quotes: two levels; each leak prefix once, in list order; goal
  tags: the first one; one trailing number) or a removal exposes what an
  earlier stage would have removed (a leak or quote revealed by removing
  INTENT or a tag): stage order is seed order, not a fixpoint.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from core.whitespace import JS_SPACE_CHARS as _JS_SPACE_CHARS
from core.whitespace import JS_SPACE_CLASS as _JS_SPACE
from core.whitespace import collapse_js_whitespace
from stream.core.degeneration import truncate_degeneration
from stream.core.goals import extract_goal_tag, goal_key_or_none
from stream.core.intent import extract_intent, has_intent_token
from stream.core.js_text import utf16_len
from stream.core.types import GoalFailReason, SanitizeResult

# --- code fences -------------------------------------------------------------

# A fence with its language tag (letters) and the whitespace after it. The
# literal "```" prefix lets the engine skip ahead; possessive quantifiers over
# disjoint classes make a match linear.
_FENCE = re.compile(r"```[A-Za-z]*+[" + _JS_SPACE + r"]*+")
FENCE: Final = "```"


def strip_code_fences(text: str) -> str:
    """Remove triple-backtick fences with a language tag and the whitespace
    after them (```` ```text I need food.\n``` ```` -> ``I need food.\n``).

    The fenced text itself is kept; single and double backticks stay. Of a
    longer backtick run, whole triples are removed.
    """
    if FENCE not in text:
        return text
    return _FENCE.sub("", text)


# --- wrapping quotes ---------------------------------------------------------

_BOTH_ENDS: Final = (('"', '"'), ("'", "'"), ("\u201c", "\u201d"))
_OPENERS: Final = ('"', "'", "\u201c")
_CLOSING: Final = ('"', "'", "\u201d")


def _unwrap_once(text: str) -> str:
    body = text.strip(_JS_SPACE_CHARS)
    if (body[:1], body[-1:]) in _BOTH_ENDS:
        return body[1:-1].strip(_JS_SPACE_CHARS)
    if body.startswith(_OPENERS):
        return body[1:].strip(_JS_SPACE_CHARS)
    if body.endswith(_CLOSING):
        return body[:-1].strip(_JS_SPACE_CHARS)
    return body


def strip_wrapping_quotes(text: str) -> str:
    """Trim, and remove a quote at either end, twice (the reference rule).

    A quote is ``"``, ``'`` or a curly double quote. Once: a text that opens
    and closes with one loses both (``"x"`` -> ``x``); else an opening quote
    alone goes (``"Hey!`` -> ``Hey!``), else a closing one. Twice, so a
    doubly quoted text (``''x''``) loses both pairs.
    """
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
_LOWER_PREFIXES: Final = tuple((p.lower(), len(p)) for p in LEAK_PREFIXES)
_PREFIX_FIRSTS: Final = frozenset(p[0].lower() for p in LEAK_PREFIXES)
_LEAK_ENDS: Final = ".\u2026;!?"
# A sentence boundary followed by a capital: a run of [.…;!?] (from its first
# character, so no start inside a run is retried), whitespace, [A-Z].
_LEAK_BOUNDARY = re.compile(
    "(?<![" + _LEAK_ENDS + "])[" + _LEAK_ENDS + "]++[" + _JS_SPACE + "]++(?=[A-Z])"
)
_LEAK_CONNECTOR = re.compile(
    "[" + _JS_SPACE + ".,;:\u2026]*+(?:(?:and|that|so|but)[" + _JS_SPACE + "]+)?",
    re.IGNORECASE | re.ASCII,
)


def strip_system_prompt_leaks(text: str) -> str:
    """Cut leaked prompt sentences from the start of ``text`` (the reference
    rule).

    Each of ``LEAK_PREFIXES`` in turn: when the text starts with it (any
    case), the prefix goes, and with it everything up to the first capital
    letter that follows a sentence boundary (``.``, ``…``, ``;``, ``!``,
    ``?`` then whitespace) anywhere in the rest; with no such capital, only
    leading whitespace and punctuation and one connector (``and``, ``that``,
    ``so``, ``but``) go, so a lower-case or non-Latin thought after a leak
    is kept.
    """
    if text[:1].lower() not in _PREFIX_FIRSTS:
        return text  # the common case: no prefix can match
    for lower, length in _LOWER_PREFIXES:
        if text[:length].lower() != lower:
            continue
        rest = text[length:]
        boundary = _LEAK_BOUNDARY.search(rest)
        if boundary is not None:
            text = rest[boundary.end() :]
        else:
            connector = _LEAK_CONNECTOR.match(rest)
            text = rest[connector.end() :] if connector else rest
    return text


# --- trailing garbage --------------------------------------------------------

_SENTENCE_ENDS: Final = ".!?"
MAX_FRAGMENT_WORDS: Final = 4
_SPACE_RUN_SPLIT = re.compile("[" + _JS_SPACE + "]+")


def _number_is_standalone(before: str, gap: str) -> bool:
    """A trailing number is dropped only after a sentence end or on a line of
    its own: "I have 3" keeps its count."""
    return "\n" in gap or "\r" in gap or before.endswith(_SENTENCE_ENDS)


def _last_sentence_end(text: str) -> int:
    """Index of the last ``.``, ``!`` or ``?``; -1 when there is none or a
    letter or digit follows it (``3.14``, ``x.com``): no sentence ended
    there."""
    index = max(text.rfind("."), text.rfind("!"), text.rfind("?"))
    if index == -1 or index + 1 == len(text) or not text[index + 1].isalnum():
        return index
    return -1


def strip_trailing_garbage(text: str) -> str:
    """Drop a trailing standalone number, then a dangling final fragment.

    The reference rules: a number (ASCII digits) after whitespace at the end
    goes with that whitespace; what follows the last sentence end (``.``,
    ``!`` or ``?``) goes when it has fewer than five words. Deliberate
    differences: the number only after a sentence end or on its own line
    (``_number_is_standalone``), and no fragment is cut after a ``.``
    inside a word (``_last_sentence_end``). Linear: string scans only.
    """
    body = text.rstrip(_JS_SPACE_CHARS)
    digits = len(body) - len(body.rstrip("0123456789"))
    if digits:
        head = body[: len(body) - digits]
        before = head.rstrip(_JS_SPACE_CHARS)
        gap = head[len(before) :]
        if gap and _number_is_standalone(before, gap):
            text = before
    end = _last_sentence_end(text)
    if end >= 0:
        after = text[end + 1 :].strip(_JS_SPACE_CHARS)
        if after and len(_SPACE_RUN_SPLIT.split(after)) <= MAX_FRAGMENT_WORDS:
            text = text[: end + 1]
    return text


# --- whitespace --------------------------------------------------------------

_SPACE_RUN = re.compile(r"[" + _JS_SPACE + r"]++")


def normalize_whitespace(text: str) -> str:
    """Collapse every run of whitespace (newlines too) to one space and trim.

    Whitespace is JavaScript's ``\\s`` set, as in the reference pipeline, so
    a multi-line thought becomes one line (``core.whitespace``: in C, linear).
    """
    return collapse_js_whitespace(text)


# --- usable content ------------------------------------------------------------

GENERIC_FILLERS: Final = (
    "maintaining awareness of surroundings",
    "observing surroundings",
    "monitoring the environment",
    "staying alert",
    "keeping watch",
    "looking around",
    "nothing to report",
)
MIN_USABLE_CHARS: Final = 5
_CODE_SYMBOLS: Final = frozenset("(){}[];=<>|&!^~+-*/\\@#$%")
_CODE_START = re.compile(
    r"(?:def |class |import |from |if |for |while |return |print\(|const |let "
    r"|var |function )"
)
_CODE_PUNCT = re.compile(r"[(){}\[\];=]")
_INDENTED = re.compile(r"[" + _JS_SPACE + r"]{2}")
_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")


def has_code_like_density(text: str) -> bool:
    """Whether ``text`` reads as code rather than prose.

    Under 3 lines: more than a quarter of the non-whitespace characters (at
    least 10 of them) are code symbols. From 3 lines: more than 40% of the
    lines score code indicators (a code keyword start, code punctuation in a
    line over 5 characters, an indented line with a word character; each
    counts). Prose that mentions "import" is not code. Lengths are counted
    as JavaScript counts them (UTF-16 code units), as the reference does.
    """
    lines = text.split("\n")
    if len(lines) < 3:
        dense = _SPACE_RUN.sub("", text)
        length = utf16_len(dense)
        if length < 10:
            return False
        symbols = sum(map(dense.count, _CODE_SYMBOLS))
        return symbols / length > 0.25
    indicators = 0
    for line in lines:
        trimmed = line.strip(_JS_SPACE_CHARS)
        if _CODE_START.match(trimmed):
            indicators += 1
        if _CODE_PUNCT.search(trimmed) and utf16_len(trimmed) > 5:
            indicators += 1
        if _INDENTED.match(line) and _WORD_CHAR.search(trimmed):
            indicators += 1
    return indicators / len(lines) > 0.4


def is_usable_content(text: str) -> bool:
    """Whether ``text`` is worth keeping: at least ``MIN_USABLE_CHARS``
    characters (UTF-16 code units) once trimmed, not code-like, not a
    generic filler line."""
    trimmed = text.strip(_JS_SPACE_CHARS)
    if utf16_len(trimmed) < MIN_USABLE_CHARS or has_code_like_density(trimmed):
        return False
    return trimmed.lower().removesuffix(".") not in GENERIC_FILLERS


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
    had_code_content = has_code_like_density(text)
    out = strip_code_fences(text)
    if out != text:
        flags.append("code_fences")
        text = out
    out = strip_wrapping_quotes(text)
    if out != text:
        # Trimming alone is not a quote removal.
        if out != text.strip(_JS_SPACE_CHARS):
            flags.append("wrapping_quotes")
        text = out
    out = strip_system_prompt_leaks(text)
    if out != text:
        flags.append("prompt_leaks")
        text = out
    goal = None
    goal_fail_reason: GoalFailReason | None = GoalFailReason.NO_TAG
    goal_tag_count = 0
    raw_goal_tag = None
    if "[" in text:
        extraction = extract_goal_tag(text)
        goal = extraction.goal
        goal_fail_reason = extraction.fail_reason
        goal_tag_count = extraction.tag_count
        raw_goal_tag = extraction.raw if goal is None else None
        if extraction.text != text:
            flags.append("goal_tag")
            text = extraction.text
    intent = None
    intent_parse = None
    if has_intent_token(text):
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
        raw_goal_tag=raw_goal_tag,
        had_code_content=had_code_content,
        is_usable=is_usable_content(text),
    )
