"""Goal tags: the one explicit way a model commits to an action (the agency contract
§2.1).

Decides whether model output contains a well-formed ``[GOAL: <action> <target>
<amount>]`` tag and what it means. Invariants:

- ``CANONICAL_ACTIONS`` is the single source of truth for actions; synonyms are
  mapped by ``ACTION_NORMALIZE_MAP``; both are versioned by
  ``NORMALIZE_MAP_VERSION``. Anything else fails closed (``unknown_action``).
- The parser is a bounded scan built on ``str.find`` (no backtracking
  regex): the closing ``]`` is looked for in ``MAX_TAG_SCAN`` characters
  after an opener; an unclosed tag runs to the end of its line. Linear in the
  input whatever its shape.
- The input text is never changed except to remove the matched tag (and trim
  what is left, as the reference does); on any failure the text is returned
  untouched and the raw tag is kept for debugging.
- The rules are the reference parser's, counted in UTF-16 code units as
  JavaScript counts; the one deliberate difference is that an amount that
  is no quantity (negative, more than ``MAX_AMOUNT_DIGITS`` digits) is
  ``None`` (docs/stream.md).
- An empty ``goalKey`` never leaves this module as a key: callers use
  ``goal_key_or_none`` and treat ``None`` as absent (the agency contract §1.3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from core.whitespace import JS_SPACE_CHARS, JS_SPACE_CLASS
from stream.core.js_text import utf16_advance
from stream.core.types import Goal, GoalFailReason

NORMALIZE_MAP_VERSION: Final = 3

CANONICAL_ACTIONS: Final[frozenset[str]] = frozenset(
    {
        "collect",
        "mine",
        "craft",
        "build",
        "find",
        "explore",
        "navigate",
        "gather",
        "check",
        "smelt",
        "repair",
        "continue",
        "cancel",
        "prioritize",
        "pause",
        "resume",
    }
)

ACTION_NORMALIZE_MAP: Final[dict[str, str]] = {
    "dig": "mine",
    "break": "mine",
    "harvest": "mine",
    "get": "collect",
    "obtain": "collect",
    "pickup": "collect",
    "make": "craft",
    "create": "craft",
    "construct": "build",
    "assemble": "build",
    "reinforce": "build",
    "fortify": "build",
    "locate": "find",
    "search": "find",
    "look": "find",
    "identify": "find",
    "move": "navigate",
    "go": "navigate",
    "reach": "navigate",
    "walk": "navigate",
    "travel": "navigate",
    "run": "navigate",
    "observe": "check",
    "assess": "check",
    "inspect": "check",
    "acknowledge": "check",
    "hear": "check",
    "listen": "check",
    "acquire": "gather",
    "increase": "gather",
    "farm": "gather",
    "fix": "repair",
    "mend": "repair",
    "restore": "repair",
    "cook": "smelt",
    "remove": "cancel",
    "drop": "cancel",
    "abort": "cancel",
    "stop": "cancel",
    "boost": "prioritize",
    "promote": "prioritize",
    "hold": "pause",
    "defer": "pause",
    "suspend": "pause",
    "unpause": "resume",
    "restart": "resume",
}

# Actions that address the task list itself, so a target is optional.
TARGETLESS_ACTIONS: Final[frozenset[str]] = frozenset(
    {"cancel", "pause", "resume", "prioritize"}
)

# Actions planning can turn into a task (PA-D2); the rest are meta or
# observational and never become convertEligible.
ROUTABLE_ACTIONS: Final[frozenset[str]] = frozenset(
    {
        "collect",
        "mine",
        "craft",
        "build",
        "gather",
        "smelt",
        "repair",
        "navigate",
        "explore",
        "find",
    }
)

GOAL_OPENER: Final = "[GOAL:"
# The closing "]" is looked for in this many characters (UTF-16 code units, as
# JavaScript counts them) after the opener, the "]" itself included: an inner
# text of at most 99.
MAX_TAG_SCAN: Final = 100
# A quantity has at most this many digits (leading zeros aside); a longer
# number is noise, and JavaScript would no longer hold it exactly.
MAX_AMOUNT_DIGITS: Final = 9

_OPENER_RE = re.compile(re.escape(GOAL_OPENER), re.IGNORECASE | re.ASCII)
_NOT_WORD = re.compile(r"[^a-z_]+")
_NOT_KEY = re.compile(r"[^a-z0-9]+")  # "_" too, so runs collapse
_SPACE_RUN = re.compile("[" + JS_SPACE_CLASS + "]+")
# JavaScript's parseInt(token, 10): an optional sign and leading ASCII digits.
_INT_PREFIX = re.compile(r"([+-]?)([0-9]+)")


@dataclass(frozen=True, slots=True)
class GoalExtraction:
    """Outcome of ``extract_goal_tag``.

    ``text`` is the input minus the matched tag (and trimmed) on success, else
    the input itself; ``raw`` is the first tag's raw text (``None`` when there
    is none); ``tag_count`` counts every opener in the input.
    """

    text: str
    goal: Goal | None
    fail_reason: GoalFailReason | None
    tag_count: int
    raw: str | None


def _reduce(token: str) -> str:
    """``token`` lowercased and reduced to ``[a-z_]``."""
    low = token.lower()
    # The common case is already clean; skip the regex for it.
    if low.isascii() and low.replace("_", "").isalpha():
        return low
    return _NOT_WORD.sub("", low)


def normalize_action(word: str) -> str | None:
    """The canonical action for ``word`` (any case, synonyms mapped), or None.

    Edge underscores go before the synonym lookup (``_dig_`` -> ``mine``).
    """
    token = _reduce(word).strip("_")
    action = ACTION_NORMALIZE_MAP.get(token, token)
    return action if action in CANONICAL_ACTIONS else None


def accepted_actions_text() -> str:
    """The accepted goal verbs, for messages and docs: the canonical actions,
    then each synonym with the action it stands for."""
    synonyms = ", ".join(
        f"{word} ({action})" for word, action in sorted(ACTION_NORMALIZE_MAP.items())
    )
    return f"{', '.join(sorted(CANONICAL_ACTIONS))}; synonyms: {synonyms}"


def goal_fail_detail(reason: GoalFailReason | None, raw: str | None) -> str | None:
    """What went wrong with a goal tag, in words (``None`` without a failure).

    An unknown verb names the accepted ones, so whoever writes the prompt or
    the model can see what a tag may say.
    """
    if reason is None or reason == GoalFailReason.NO_TAG:
        return None
    if reason == GoalFailReason.UNKNOWN_ACTION:
        inner = (raw or "")[len(GOAL_OPENER) :].removesuffix("]")
        verb = next(iter(_split(inner)), "")[:40]
        return (
            f"unknown goal action {verb!r}; accepted actions: {accepted_actions_text()}"
        )
    if reason == GoalFailReason.TAG_TOO_LONG:
        return f"no ']' within {MAX_TAG_SCAN} characters after '{GOAL_OPENER}'"
    if reason == GoalFailReason.NO_TARGET:
        return (
            "the goal names no target (only cancel, pause, resume and "
            "prioritize may go without one)"
        )
    return "the goal tag is empty"


def parse_int(token: str) -> int | None:
    """``parseInt(token, 10)`` as JavaScript reads it, or ``None`` for NaN."""
    match = _INT_PREFIX.match(token)
    if match is None:
        return None
    return _quantity(match.group(1), match.group(2))


def _quantity(sign: str, digits: str) -> int | None:
    """Not a quantity (``None``): negative, or more than ``MAX_AMOUNT_DIGITS``
    digits."""
    significant = digits.lstrip("0")
    if len(significant) > MAX_AMOUNT_DIGITS or (sign == "-" and significant):
        return None
    return int(significant or "0")


def _split(inner: str) -> list[str]:
    """``inner.trim().split(/\\s+/)``: tokens between JavaScript whitespace."""
    return [token for token in _SPACE_RUN.split(inner) if token]


def _parse_inner(inner: str, raw: str) -> tuple[Goal | None, GoalFailReason | None]:
    """Parse a tag's inside; the goal's amount is the tag's own (or None)."""
    tokens = _split(inner)
    if not tokens:
        return None, GoalFailReason.EMPTY_INNER
    action = normalize_action(tokens[0])
    if action is None:
        return None, GoalFailReason.UNKNOWN_ACTION
    words: list[str] = []
    target_id: str | None = None
    amount: int | None = None
    last = len(tokens) - 1
    for index, token in enumerate(tokens[1:], start=1):
        if "=" in token:
            low = token.lower()
            if low.startswith("id=") and len(token) > 3:
                target_id = token[3:]
                continue
            if low.startswith("amount=") and len(token) > 7:
                match = _INT_PREFIX.match(token, 7)
                if match is not None:
                    # Parsed: the token is the amount, even when not a quantity.
                    amount = _quantity(match.group(1), match.group(2))
                    continue
        if index == last and token.isascii() and token.isdigit():
            amount = _quantity("", token)
            continue
        word = _reduce(token)
        if word:
            words.append(word)
    if not words and target_id is None and action not in TARGETLESS_ACTIONS:
        return None, GoalFailReason.NO_TARGET
    goal = Goal(
        action=action,
        target=" ".join(words),
        target_id=target_id,
        amount=amount,
        raw=raw,
    )
    return goal, None


# After "]": whitespace, a number, and a unit glued to it ("20x", "20units").
_TRAILING_AMOUNT = re.compile("[" + JS_SPACE_CLASS + r"]*+([0-9]++)[A-Za-z0-9_]*+")


def extract_goal_tag(text: str) -> GoalExtraction:
    """Find the first ``[GOAL: ...]`` tag in ``text`` and parse it.

    Contract (the agency contract §2.1), the reference parser's rules: the
    opener is case-insensitive; the tag ends at the first ``]`` within
    ``MAX_TAG_SCAN`` characters after the opener, newlines included. With
    none there but one further on, the tag fails with ``tag_too_long``; with
    none at all, the tag runs to the end of its line. Inside, tokens are
    split on whitespace: the first is the action (edge ``_`` dropped,
    synonyms mapped); ``id=<x>`` sets ``target_id`` as written;
    ``amount=<N>`` (read as ``parseInt``) or a bare number as the *last*
    token sets the amount (the later token wins); the other tokens, reduced
    to ``[a-z_]``, are the target words. A goal needs a target word or an
    id unless its action is one of ``TARGETLESS_ACTIONS``. After a closed
    tag, whitespace, a number and a unit glued to it (``] 20``, ``] 20x``)
    are removed with the tag, and the number is the amount when the tag has
    none. The text left is trimmed. Amounts that are no quantity (negative,
    more than ``MAX_AMOUNT_DIGITS`` digits) are ``None``. The first tag
    wins; every opener is counted. Deterministic, linear time.
    """
    if "[" not in text:
        return GoalExtraction(text, None, GoalFailReason.NO_TAG, 0, None)
    match = _OPENER_RE.search(text)
    if match is None:
        return GoalExtraction(text, None, GoalFailReason.NO_TAG, 0, None)
    # No character outside ASCII lowercases to "[goal:", so counting on the
    # lowered text counts exactly the case-insensitive openers, in C.
    tag_count = text.lower().count("[goal:")
    start = match.start()
    inner_start = match.end()
    limit = utf16_advance(text, inner_start, MAX_TAG_SCAN)
    close = text.find("]", inner_start, limit)
    if close != -1:
        inner = text[inner_start:close]
        end = close + 1
    else:
        line_end = text.find("\n", inner_start)
        end = line_end if line_end != -1 else len(text)
        inner = text[inner_start:end]
        if text.find("]", limit) != -1:
            raw = text[start:end]
            return GoalExtraction(
                text, None, GoalFailReason.TAG_TOO_LONG, tag_count, raw
            )
    raw = text[start:end]
    goal, reason = _parse_inner(inner, raw)
    if goal is None:
        return GoalExtraction(text, None, reason, tag_count, raw)
    if close != -1:
        after = _TRAILING_AMOUNT.match(text, end)
        if after is not None:
            # Removed with the tag even when the tag has its own amount,
            # which then wins ("[GOAL: build shelter 1] 37" -> 1).
            if goal.amount is None:
                amount = _quantity("", after.group(1))
                goal = Goal(goal.action, goal.target, goal.target_id, amount, raw)
            end = after.end()
    rest = (text[:start] + text[end:]).strip(JS_SPACE_CHARS)
    return GoalExtraction(rest, goal, None, tag_count, raw)


def canonical_goal_key(action: str, target: str) -> str:
    """``action:target`` canonicalised; ``''`` when either side is empty.

    Lowercase; runs of whitespace and of characters outside ``[a-z0-9_]``
    become one ``_``; repeated ``_`` collapse and edge ``_`` are trimmed.
    Callers must treat ``''`` as absent (use ``goal_key_or_none``).
    """
    left = _canonical_part(action)
    right = _canonical_part(target)
    if not left or not right:
        return ""
    return f"{left}:{right}"


def _canonical_part(value: str) -> str:
    low = value.lower()
    if (
        low.isascii()
        and low.replace("_", "").isalnum()
        and "__" not in low
        and low[0] != "_"
        and low[-1] != "_"
    ):
        return low  # already canonical: the common case, no regex
    return _NOT_KEY.sub("_", low).strip("_")


def goal_key_or_none(action: str, target: str) -> str | None:
    """The canonical goal key, or ``None`` where it would be empty."""
    return canonical_goal_key(action, target) or None
