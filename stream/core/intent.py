"""INTENT extraction: a compliance measurement that never survives in text.

Decides which INTENT label (if any) the model declared and removes every
``INTENT:`` token from the text (the agency contract §2.2, §2.3, §6.2), by the
reference parser's rules. Invariants:

- Two passes. Pass 1: the last non-empty line, trimmed, is exactly
  ``INTENT: <word>`` -> that line is removed, ``final_line``. Pass 2: every
  other ``INTENT: <word>`` is removed with the horizontal whitespace around
  it; runs of horizontal whitespace then become one space and the text is
  trimmed. Newlines inside the text always survive (Contract B). If pass 1
  did not match, the label is the word of the first token that has one,
  ``inline_noncompliant``.
- The token matches in any ASCII case (``intent:`` too). Labels outside
  ``VALID_INTENTS`` give ``intent=None`` (fail closed); the token is removed
  regardless of its label.
- ``INTENT:`` never occurs in the output (the reference leaves a token with no
  word, or one its removal formed): what the reference rule leaves is removed
  with the words and colons glued to it, so the text after a removal can
  never complete a new ``INTENT:``. Linear time (literal prefixes, possessive
  quantifiers, no start retried inside a whitespace run).
- No token, no parse: ``intent_parse`` is ``None`` for a text without one
  (the reference also reports ``inline_noncompliant`` when only whitespace
  changed). It is for measuring model format compliance; nothing downstream
  may branch on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from core.whitespace import JS_SPACE_CHARS, JS_SPACE_CLASS
from stream.core.types import IntentParse

VALID_INTENTS: Final[frozenset[str]] = frozenset(
    {"none", "explore", "gather", "craft", "shelter", "food", "mine", "navigate"}
)

INTENT_TOKEN: Final = "INTENT:"  # noqa: S105 (a label, not a secret)
# The token in any ASCII case ("intent:", "Intent:"), as models write it.
_TOKEN: Final = "[Ii][Nn][Tt][Ee][Nn][Tt]:"  # noqa: S105 (a pattern)
_ANY_TOKEN = re.compile(_TOKEN)
_SPACE: Final = "[" + JS_SPACE_CLASS + "]"
_HSPACE: Final = "[" + JS_SPACE_CLASS.replace("\n", "") + "]"
_WORD: Final = "[A-Za-z0-9_]"

# The whole last non-empty line, trimmed: the token and one word.
_FINAL_LINE = re.compile(_TOKEN + _SPACE + "*+(" + _WORD + "++)")
# An inline token with the horizontal whitespace around it and its word (the
# reference rule). The whitespace before it is taken from the start of its
# run only, so no start inside a long run is retried: linear.
_INLINE = re.compile(
    "(?:(?<!"
    + _HSPACE
    + ")"
    + _HSPACE
    + "++)?"
    + _TOKEN
    + _HSPACE
    + "*+"
    + _WORD
    + "++"
)
# What the reference rule leaves: a token without a word, or one that a
# removal formed ("INTENTINTENT: a: b"). Glued ":word" continuations go too,
# so the character after a cut is never ":" or a word character and no new
# token can form.
_LEFTOVER = re.compile(_TOKEN + _HSPACE + "*+" + _WORD + "*+(?::++" + _WORD + "*+)*+")
_HSPACE_RUN = re.compile(_HSPACE + "{2,}+")
# The label of an inline token: the first token followed by a word.
_INLINE_LABEL = re.compile(_TOKEN + _SPACE + "*+(" + _WORD + "++)")


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


def strip_inline_intent(text: str) -> tuple[str, bool]:
    """Remove every inline ``INTENT:`` token; newlines are never touched.

    Returns ``(text, found)``. With a token found, runs of horizontal
    whitespace become one space and the text is trimmed (the reference
    rule); without one the text comes back as it is.
    """
    stripped, found = _INLINE.subn("", text)
    if _ANY_TOKEN.search(stripped) is not None:
        stripped, leftover = _LEFTOVER.subn("", stripped)
        found += leftover
    if not found:
        return text, False
    return _HSPACE_RUN.sub(" ", stripped).strip(JS_SPACE_CHARS), True


def extract_intent(text: str) -> IntentExtraction:
    """Two-pass INTENT parser (the agency contract §2.2); see the module docstring.

    Deterministic; the output never contains ``INTENT:`` and has every newline
    of the input except the one ending the text before a final INTENT line.
    """
    if not has_intent_token(text):
        return IntentExtraction(text, None, None)
    body = text.rstrip(JS_SPACE_CHARS)
    line_start = body.rfind("\n") + 1
    final = _FINAL_LINE.fullmatch(body[line_start:].strip(JS_SPACE_CHARS))
    if final is not None:
        rest = body[:line_start].rstrip(JS_SPACE_CHARS)
        rest = _HSPACE_RUN.sub(" ", strip_inline_intent(rest)[0])
        rest = rest.strip(JS_SPACE_CHARS)
        return IntentExtraction(rest, _label(final.group(1)), IntentParse.FINAL_LINE)
    stripped, found = strip_inline_intent(text)
    if not found:
        return IntentExtraction(text, None, None)
    word = _INLINE_LABEL.search(text)
    label = _label(word.group(1)) if word is not None else None
    return IntentExtraction(stripped, label, IntentParse.INLINE_NONCOMPLIANT)
