"""Goal tags: the one explicit way a model commits to an action (the agency contract
§2.1).

Decides whether model output contains a well-formed ``[GOAL: <action> <target>
<amount>]`` tag and what it means. Invariants:

- ``CANONICAL_ACTIONS`` is the single source of truth for actions; synonyms are
  mapped by ``ACTION_NORMALIZE_MAP``; both are versioned by
  ``NORMALIZE_MAP_VERSION``. Anything else fails closed (``unknown_action``).
- The parser is a bounded scan built on ``str.find`` with explicit limits (no
  backtracking regex): at most ``MAX_TAG_INNER`` characters are read after an
  opener, so the cost is linear in the input whatever its shape.
- The input text is never changed except to remove the matched tag; on any
  failure the text is returned untouched and the raw tag is kept for debugging.
- An empty ``goalKey`` never leaves this module as a key: callers use
  ``goal_key_or_none`` and treat ``None`` as absent (the agency contract §1.3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

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
MAX_TAG_INNER: Final = 100
# More digits than this is noise, not a quantity.
MAX_AMOUNT_DIGITS: Final = 9

_OPENER_RE = re.compile(re.escape(GOAL_OPENER), re.IGNORECASE | re.ASCII)
_NOT_WORD = re.compile(r"[^a-z_]+")
_NOT_ID = re.compile(r"[^a-z0-9_.:-]+")
_NOT_KEY = re.compile(r"[^a-z0-9]+")  # "_" too, so runs collapse
_TRAILING_PUNCT = ".,;:!?"


@dataclass(frozen=True, slots=True)
class GoalExtraction:
    """Outcome of ``extract_goal_tag``.

    ``text`` is the input minus the matched tag on success, else the input
    itself; ``raw`` is the first tag's raw text (``None`` when there is none);
    ``tag_count`` counts every opener in the input.
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


def _amount(token: str) -> int | None:
    if 0 < len(token) <= MAX_AMOUNT_DIGITS and token.isascii() and token.isdigit():
        return int(token)
    return None


def _parse_inner(
    inner: str, raw: str
) -> tuple[Goal | None, GoalFailReason | None, bool]:
    """Parse a tag's inside; the bool says whether it already set an amount."""
    tokens = inner.split()
    if not tokens:
        return None, GoalFailReason.EMPTY_INNER, False
    action = normalize_action(tokens[0])
    if action is None:
        return None, GoalFailReason.UNKNOWN_ACTION, False
    words: list[str] = []
    target_id: str | None = None
    explicit_amount: int | None = None
    bare_amount: int | None = None
    last = len(tokens) - 1
    for index, token in enumerate(tokens[1:], start=1):
        if "=" in token:
            low = token.lower()
            if low.startswith("id="):
                value = _NOT_ID.sub("", low[3:])
                if value:
                    target_id = value
                continue
            if low.startswith("amount="):
                explicit_amount = _amount(low[7:].rstrip(_TRAILING_PUNCT))
                continue
        if index == last and token.isascii() and token.isdigit():
            # Only the last token is a bare amount; a number elsewhere
            # ("collect 8 oak_log") is no target word and no amount.
            bare_amount = _amount(token)
            continue
        word = _reduce(token)
        if word:
            words.append(word)
    if not words and action not in TARGETLESS_ACTIONS:
        return None, GoalFailReason.NO_TARGET, False
    amount = explicit_amount if explicit_amount is not None else bare_amount
    goal = Goal(
        action=action,
        target=" ".join(words),
        target_id=target_id,
        amount=amount,
        raw=raw,
    )
    return goal, None, amount is not None


# After "]": whitespace, a number, and a unit glued to it ("20x", "20units").
_TRAILING_AMOUNT = re.compile(
    r"[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]*+"
    r"([0-9]++)[A-Za-z0-9_]*+"
)


def _trailing_amount(text: str, pos: int) -> tuple[int | None, int] | None:
    """A number right after ``]``: (value, end index), or None.

    The value is ``None`` when the number has more than ``MAX_AMOUNT_DIGITS``
    digits (it is still removed with the tag).
    """
    match = _TRAILING_AMOUNT.match(text, pos)
    if match is None:
        return None
    return _amount(match.group(1)), match.end()


def extract_goal_tag(text: str) -> GoalExtraction:
    """Find the first ``[GOAL: ...]`` tag in ``text`` and parse it.

    Contract (the agency contract §2.1): the opener is case-insensitive; the tag ends at
    the first ``]`` within ``MAX_TAG_INNER`` characters, or, when a newline or
    another ``[`` (or the end of the text) comes first, right before it (a
    missing ``]``). If none of these occurs within the limit the tag fails with
    ``tag_too_long``. Inside, the first token is the action (edge ``_``
    dropped, synonyms mapped); ``id=<x>`` sets ``target_id``, ``amount=<N>``
    or a bare number as the *last* token sets ``amount`` (explicit wins); the
    other tokens, reduced to ``[a-z_]``, are the target words (a number
    elsewhere is neither). After a closed tag, whitespace, a number and a unit
    glued to it (``] 20``, ``] 20x``) are removed with the tag, and the number
    is the amount when the tag has none. The first tag wins; every opener is
    counted. Deterministic, linear time.
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
    n = len(text)
    limit = min(n, inner_start + MAX_TAG_INNER + 1)
    close = text.find("]", inner_start, limit)
    stop = limit
    for terminator in ("\n", "["):
        found = text.find(terminator, inner_start, limit)
        if found != -1 and found < stop:
            stop = found
    if close != -1 and close < stop:
        inner = text[inner_start:close]
        end = close + 1
        closed = True
    elif stop < limit or limit == n:
        inner = text[inner_start:stop]
        end = stop
        closed = False
    else:
        raw = text[start:limit]
        return GoalExtraction(text, None, GoalFailReason.TAG_TOO_LONG, tag_count, raw)
    raw = text[start:end]
    goal, reason, has_amount = _parse_inner(inner, raw)
    if goal is None:
        return GoalExtraction(text, None, reason, tag_count, raw)
    if closed:
        after = _trailing_amount(text, end)
        if after is not None:
            # Removed with the tag even when the tag has its own amount,
            # which then wins ("[GOAL: build shelter 1] 37" -> 1).
            end = after[1]
            amount = goal.amount if has_amount else after[0]
            goal = Goal(goal.action, goal.target, goal.target_id, amount, goal.raw)
    return GoalExtraction(text[:start] + text[end:], goal, None, tag_count, raw)


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
