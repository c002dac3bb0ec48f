"""INTENT extraction: a compliance measurement that never survives in text.

Decides which INTENT label (if any) the model declared and removes every
``INTENT:`` token from the text (the agency contract §2.2, §2.3, §6.2). Invariants:

- Two passes. Pass 1: the last non-empty line is exactly ``INTENT: <word>``
  -> that line is removed, ``final_line``. Pass 2: every other ``INTENT:``
  token is removed with the horizontal whitespace and the word after it;
  newlines always survive (Contract B). If pass 1 did not match,
  the first inline token's label is the intent, ``inline_noncompliant``.
- The token matches in any ASCII case (``intent:`` too). Labels outside
  ``VALID_INTENTS`` give ``intent=None`` (fail closed); the token is removed
  regardless of its label.
- ``INTENT:`` never occurs in the output, even when removing one token would
  join the pieces around it into a new one: a removal also takes the words and
  colons glued to the token, so the text after a removal can never complete a
  new ``INTENT:``. Linear time (a literal prefix, no nested quantifiers).
- ``intent_parse`` is for measuring model format compliance; nothing
  downstream may branch on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from stream.core.types import IntentParse

VALID_INTENTS: Final[frozenset[str]] = frozenset(
    {"none", "explore", "gather", "craft", "shelter", "food", "mine", "navigate"}
)

INTENT_TOKEN: Final = "INTENT:"  # noqa: S105 (a label, not a secret)
# The token in any ASCII case ("intent:", "Intent:"), as models write it.
_TOKEN: Final = "[Ii][Nn][Tt][Ee][Nn][Tt]:"  # noqa: S105 (a pattern)
_ANY_TOKEN = re.compile(_TOKEN)

# The whole last line: optional word, optional sentence punctuation.
_FINAL_LINE = re.compile(r"[^\S\n]*" + _TOKEN + r"[^\S\n]*(\w*)[^\S\n]*[.!]?[^\S\n]*")
# Inline token with its word. The literal prefix lets the engine skip ahead;
# glued ``:word`` continuations are consumed so the character after a removal
# is never ``:`` or a word character (no new token can form across the cut).
# Blanks before the token are left to normalize_whitespace.
_INLINE = re.compile(_TOKEN + r"[^\S\n]*(\w*)(?::+\w*)*")


@dataclass(frozen=True, slots=True)
class IntentExtraction:
    text: str
    intent: str | None
    intent_parse: IntentParse | None


def _label(word: str) -> str | None:
    label = word.lower()
    return label if label in VALID_INTENTS else None


def has_intent_token(text: str) -> bool:
    """Whether ``text`` holds an ``INTENT:`` token in any ASCII case."""
    return _ANY_TOKEN.search(text) is not None


def strip_inline_intent(text: str) -> tuple[str, str | None, bool]:
    """Remove every inline ``INTENT:`` token; newlines are never touched.

    Returns ``(text, first_word, found)``: ``first_word`` is the raw word of
    the first token (``None`` when there is none or it had no word).
    """
    first = _INLINE.search(text)
    if first is None:
        return text, None, False
    stripped = _INLINE.sub("", text)
    return stripped, first.group(1) or None, True


def extract_intent(text: str) -> IntentExtraction:
    """Two-pass INTENT parser (the agency contract §2.2); see the module docstring.

    Deterministic; the output never contains ``INTENT:`` and has every newline
    of the input except the one ending the text before a final INTENT line.
    """
    if not has_intent_token(text):
        return IntentExtraction(text, None, None)
    body = text.rstrip()
    line_start = body.rfind("\n") + 1
    final = _FINAL_LINE.fullmatch(body, line_start)
    if final is not None:
        rest, _, _ = strip_inline_intent(body[:line_start].rstrip())
        return IntentExtraction(rest, _label(final.group(1)), IntentParse.FINAL_LINE)
    stripped, word, _ = strip_inline_intent(text)
    label = _label(word) if word is not None else None
    return IntentExtraction(stripped, label, IntentParse.INLINE_NONCOMPLIANT)
