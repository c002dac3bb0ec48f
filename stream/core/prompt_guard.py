"""The run-time guard of I-1 / KA-A1: no rendered prompt carries a goal.

Every prompt is checked before a model sees it, not only the templates in
tests. Two parts, because they answer to different rules:

- the template words around the frame must pass ``template_violations``
  (no suggestion phrases, no action verbs, no format lines but the goal tag
  syntax);
- the frame itself states facts and the agent's own past words, so action
  verbs and everyday phrases may appear there ("I mined stone", "I tried to
  swim"), but goal text may not: no goal tag in any bracket style.

Pure and deterministic; ``PromptViolation`` carries the sorted codes.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from core.errors import CoreError
from stream.core.prompts import template_violations
from stream.core.types import RenderedFrame

# "[GOAL: ...]", "(GOAL: ...)", "{goal: ...}", "GOAL: ..." at a line start.
_GOAL_MARK: Final = re.compile(r"(?:[\[({<]\s*|^\s*)goal\s*:", re.IGNORECASE | re.M)


class PromptViolation(CoreError):
    """A rendered prompt would carry goal text; ``details["violations"]``."""

    code = "prompt_violation"


def goal_text_violations(text: str) -> tuple[str, ...]:
    """Goal text in free text, as sorted codes; empty tuple = clean.

    ``goal_tag`` for any goal-tag marker (``[GOAL:``, ``(GOAL:``, a line
    starting ``GOAL:``; case-insensitive), e.g. a drive tick's own text.
    """
    return ("goal_tag",) if _GOAL_MARK.search(text) else ()


@functools.lru_cache(maxsize=64)
def _template_codes(template: str) -> tuple[str, ...]:
    # The words around the frame are the same for every prompt of a
    # template: checked once, not on every call.
    return template_violations(template)


def prompt_violations(prompt: str, *, frame: RenderedFrame) -> tuple[str, ...]:
    """Every I-1 violation of ``prompt`` built around ``frame``.

    Template codes keep their names (``action_verb:<verb>`` ...); frame
    codes are prefixed ``frame:``. A prompt that does not contain the frame
    text is checked whole as a template.
    """
    if frame.text and frame.text in prompt:
        template = prompt.replace(frame.text, "", 1)
        frame_codes = goal_text_violations(frame.text)
    else:
        template, frame_codes = prompt, ()
    codes = set(_template_codes(template))
    codes.update(f"frame:{code}" for code in frame_codes)
    return tuple(sorted(codes))


def check_prompt(prompt: str, *, frame: RenderedFrame) -> None:
    """Raise ``PromptViolation`` when ``prompt`` carries goal text."""
    violations = prompt_violations(prompt, frame=frame)
    if violations:
        raise PromptViolation(
            "the rendered prompt carries goal text: " + ", ".join(violations),
            details={"violations": list(violations)},
        )
