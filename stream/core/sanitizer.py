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
- ``flags`` name exactly the stages that changed the text.
- A second pass changes nothing, except where a rule is single-shot by
  contract (quotes: two levels; goal tags: the first one; one trailing
  number) or a removal exposes what an earlier stage would have removed (a
  leak or quote revealed by removing INTENT or a tag): stage order is seed
  order, not a fixpoint.
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
    + r"[^A-Z\[]*+(?:\[(?![A-Z])[^A-Z\[]*+)*+)+"
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


# --- trailing garbage --------------------------------------------------------

_END_CHARS: Final = (".", "!", "?", "\u2026")
_CLOSERS: Final = "\"')]\u201d\u2019"
MAX_FRAGMENT_WORDS: Final = 4


def _is_ended(text: str) -> bool:
    return text.rstrip(_CLOSERS).endswith(_END_CHARS)


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
        gap = head[len(previous) :]
        if "\n" in gap or "\r" in gap or _is_ended(previous):
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
    counts). Prose that mentions "import" is not code.
    """
    lines = text.split("\n")
    if len(lines) < 3:
        dense = _SPACE_RUN.sub("", text)
        if len(dense) < 10:
            return False
        symbols = sum(1 for char in dense if char in _CODE_SYMBOLS)
        return symbols / len(dense) > 0.25
    indicators = 0
    for line in lines:
        trimmed = line.strip(_JS_SPACE_CHARS)
        if _CODE_START.match(trimmed):
            indicators += 1
        if len(trimmed) > 5 and _CODE_PUNCT.search(trimmed):
            indicators += 1
        if _INDENTED.match(line) and _WORD_CHAR.search(trimmed):
            indicators += 1
    return indicators / len(lines) > 0.4


def is_usable_content(text: str) -> bool:
    """Whether ``text`` is worth keeping: at least ``MIN_USABLE_CHARS``
    characters once trimmed, not code-like, not a generic filler line."""
    trimmed = text.strip(_JS_SPACE_CHARS)
    if len(trimmed) < MIN_USABLE_CHARS or has_code_like_density(trimmed):
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
