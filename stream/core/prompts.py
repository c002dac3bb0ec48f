"""Prompt templates wrapped around a situation frame, and their validator.

Decides the exact words a model receives besides the facts. Invariants
(KA-A1, I-1):

- No template suggests anything: ``template_violations`` rejects the banned
  suggestion phrases, any form of a canonical action verb, and any format
  line other than the goal tag syntax ``[GOAL: <action> <target> <amount>]``.
- The templates name no action and list no candidates; a model that wants to
  act has to say so in its own words, through the tag.
- ``build_prompt`` only substitutes the frame text; same frame, same prompt.
"""

from __future__ import annotations

import re
from typing import Final

from stream.core.goals import CANONICAL_ACTIONS
from stream.core.types import RenderedFrame

GOAL_TAG_SYNTAX: Final = "[GOAL: <action> <target> <amount>]"
FRAME_SLOT: Final = "{frame}"

# The leaked-prompt prefixes the sanitizer strips are these sentences, so a
# model that echoes its instructions is cleaned up.
INNER_THOUGHT_V1: Final = (
    "You are my private inner thought. "
    "Write exactly one or two short sentences in the first person about the "
    "situation below. "
    "Say what I notice, in plain words. "
    "Use names that appear in the situation; never invent items, creatures or "
    "places.\n"
    "Only if I'm committing to a concrete action, end with one line in this "
    "form:\n" + GOAL_TAG_SYNTAX + "\n\n" + FRAME_SLOT
)

TEMPLATES: Final[dict[str, str]] = {"inner_thought.v1": INNER_THOUGHT_V1}
DEFAULT_TEMPLATE: Final = "inner_thought.v1"

BANNED_PHRASES: Final = (
    "you should",
    "you could",
    "consider doing",
    "consider gathering",
    "consider crafting",
    "consider building",
    "might want to",
    "try to",
    "why not",
    "perhaps you",
    "maybe you",
    "it would be good to",
    "a good idea would be",
    "options include",
    "you can choose to",
)

# Irregular forms the suffix rule below cannot produce.
_IRREGULAR_FORMS: Final = {"build": ("built",), "find": ("found",)}


def _verb_forms(verb: str) -> tuple[str, ...]:
    stem = verb[:-1] if verb.endswith("e") else verb
    forms = {verb, verb + "s", verb + "es", stem + "ed", stem + "ing", stem + "er"}
    forms.update(_IRREGULAR_FORMS.get(verb, ()))
    return tuple(sorted(forms))


ACTION_VERB_FORMS: Final[dict[str, tuple[str, ...]]] = {
    verb: _verb_forms(verb) for verb in sorted(CANONICAL_ACTIONS)
}
_FORM_TO_VERB: Final = {
    form: verb for verb, forms in ACTION_VERB_FORMS.items() for form in forms
}
_WORD = re.compile(r"[a-z_]+")
_SPACES = re.compile(r"\s+")
# A line that prescribes an output format: a placeholder such as <action>, or
# a "LABEL:" line of the kind models are asked to fill in (INTENT: ...).
_FORMAT_LINE = re.compile(r"<[a-z_ ]+>|^\s*[A-Z][A-Z_]+:", re.MULTILINE)


def template_violations(text: str) -> tuple[str, ...]:
    """Every KA-A1 violation in ``text``, as sorted codes.

    ``banned_phrase:<phrase>`` for a suggestion phrase (case and whitespace
    insensitive), ``action_verb:<verb>`` for any form of a canonical action,
    ``format_line:<line>`` for a format line other than the goal tag syntax.
    The goal tag syntax line itself is exempt. Empty tuple = clean.
    """
    found: set[str] = set()
    lines = [line for line in text.splitlines() if line.strip() != GOAL_TAG_SYNTAX]
    body = "\n".join(lines)
    flat = _SPACES.sub(" ", body.lower())
    for phrase in BANNED_PHRASES:
        if phrase in flat:
            found.add(f"banned_phrase:{phrase}")
    for word in _WORD.findall(flat):
        verb = _FORM_TO_VERB.get(word)
        if verb is not None:
            found.add(f"action_verb:{verb}")
    for line in lines:
        if _FORMAT_LINE.search(line):
            found.add(f"format_line:{line.strip()}")
    return tuple(sorted(found))


def build_prompt(frame: RenderedFrame, *, template: str = DEFAULT_TEMPLATE) -> str:
    """The prompt for ``frame``: the named template with the frame text in it.

    Raises ``KeyError`` for an unknown template name.
    """
    return TEMPLATES[template].replace(FRAME_SLOT, frame.text)
