"""Instruction segments: extraction from an activation or issue body, and
rendering of the round instruction comment.

Extraction finds the Scope, Tasks and Acceptance Criteria sections (headings
as ``## Scope``, ``**Scope**`` or ``Scope:``), drops status bundles (latest
runs, coverage, check tables) and returns them under ``####`` headings, or
``""`` when none of the three has content. Same input, same output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from prkeepalive.core.markers import render_markers, unescape_fully

SECTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("scope", "Scope", ("scope", "issue scope")),
    ("tasks", "Tasks", ("tasks", "task list")),
    ("acceptance", "Acceptance Criteria", ("acceptance criteria", "acceptance")),
)
_ALIASES = {alias: key for key, _, aliases in SECTIONS for alias in aliases}
_HEADING = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]+)?(?:\*\*)?[ \t]*("
    + "|".join(re.escape(a) for a in sorted(_ALIASES, key=len, reverse=True))
    + r")[ \t]*(?:\*\*)?[ \t]*:?[ \t]*(?:\*\*)?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
# Any other markdown heading ends a section too ("## Notes").
_OTHER_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+\S.*$", re.MULTILINE)
# Long status bundles never travel in an instruction.
_STATUS_BUNDLE = re.compile(
    r"^[ \t]*(?:\*\*|#{1,6}[ \t]+)?[ \t]*(?:head[ \t]*sha|latest[ \t]+runs?|"
    r"required[ \t]+status[ \t]+checks|workflow[ \t]*/[ \t]*job|coverage)\b.*$"
    r"|^[ \t]*\|[ \t]*workflow[ \t]*/[ \t]*job[ \t]*\|.*$"
    r"|^[ \t]*<sub>execution info:.*$",
    re.IGNORECASE | re.MULTILINE,
)
_HIDDEN_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_EXECUTION_INFO_MAX = 200
# The fixed wording of a round instruction: evalsite's own, and that of the
# workflow scripts the keepalive contract comes from. A person's comment
# carrying it is a copy of an instruction, not a new request.
INSTRUCTION_SENTENCE = (
    "complete the Tasks within the Scope until every Acceptance Criterion holds"
)
INSTRUCTION_SIGNATURES = (
    INSTRUCTION_SENTENCE,
    "keepalive workflow continues nudging until everything is complete",
    "<sub>execution info:",
)


@dataclass(frozen=True, slots=True)
class Segments:
    scope: str = ""
    tasks: str = ""
    acceptance: str = ""

    @property
    def is_empty(self) -> bool:
        return not (self.scope or self.tasks or self.acceptance)

    def render(self) -> str:
        parts = []
        for key, label, _ in SECTIONS:
            content = getattr(self, key)
            if content:
                parts.append(f"#### {label}\n{content}")
        return "\n\n".join(parts)


def _cut_status_bundle(text: str) -> str:
    match = _STATUS_BUNDLE.search(text)
    return text[: match.start()] if match else text


def parse_segments(body: str) -> Segments:
    """The three sections of ``body``; a section missing stays empty."""
    text = _HIDDEN_COMMENT.sub("", body.replace("\r\n", "\n"))
    headings = list(_HEADING.finditer(text))
    if not headings:
        return Segments()
    found: dict[str, str] = {}
    for index, heading in enumerate(headings):
        key = _ALIASES[heading.group(1).lower()]
        if key in found:
            continue
        start = heading.end()
        end = headings[index + 1].start() if index + 1 < len(headings) else len(text)
        other = _OTHER_HEADING.search(text, start, end)
        if other:
            end = other.start()
        found[key] = _cut_status_bundle(text[start:end]).strip()
    return Segments(
        scope=found.get("scope", ""),
        tasks=found.get("tasks", ""),
        acceptance=found.get("acceptance", ""),
    )


def extract_instruction(*sources: str) -> str:
    """The rendered segments of the first source that has any, else ``""``.

    Callers pass the activation comment first and the linked issue's body
    after it, so a person's comment with its own Scope/Tasks wins.
    """
    for source in sources:
        segments = parse_segments(source)
        if not segments.is_empty:
            return segments.render()
    return ""


def echoes_instruction(body: str) -> bool:
    """``body`` carries a round instruction's fixed wording (after undoing
    HTML escapes, case and spacing ignored)."""
    text = " ".join(unescape_fully(body).lower().split())
    return any(" ".join(s.lower().split()) in text for s in INSTRUCTION_SIGNATURES)


def render_instruction(
    *,
    round: int,
    trace: str,
    agent: str,
    segments: str,
    execution_info: str = "",
) -> str:
    """The instruction comment: markers on top, ``@agent``, the segments and
    an optional one-line execution info (base/head/PR), cut to 200 chars.

    Raises ``ValueError`` when ``segments`` is empty: an instruction without
    Scope/Tasks/Acceptance is never posted.
    """
    body = segments.strip()
    if not body:
        raise ValueError("instruction segments are empty")
    alias = agent.strip().lstrip("@") or "codex"
    lines = [
        render_markers(round=round, trace=trace),
        f"@{alias} continue on this pull request: {INSTRUCTION_SENTENCE}.",
        "",
        body,
    ]
    info = " ".join(execution_info.split())
    if info:
        if len(info) > _EXECUTION_INFO_MAX:
            info = info[: _EXECUTION_INFO_MAX - 1] + "…"
        lines += ["", f"<sub>Execution info: {info}</sub>"]
    return "\n".join(lines) + "\n"
