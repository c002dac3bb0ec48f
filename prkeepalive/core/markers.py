"""Hidden keepalive markers: parsing both accepted forms, and rendering.

Accepted (case-insensitive, ``:`` and ``#`` optional, any spacing):

- one line: ``<!-- codex-keepalive-marker --> <!-- codex-keepalive-round: N -->
  <!-- codex-keepalive-trace: ID -->``
- separate lines: ``<!-- keepalive-round: N -->`` / ``<!-- keepalive-trace: ID -->``

Rendering always writes the one-line form at the top of the body.
"""

from __future__ import annotations

import html
import re

from prkeepalive.core.types import Markers

_SENTINEL = re.compile(r"<!--\s*codex-keepalive-marker\s*-->", re.IGNORECASE)
_ROUND = re.compile(
    r"<!--\s*(?:codex-)?keepalive-round\s*:?\s*#?\s*(\d+)\s*-->", re.IGNORECASE
)
_TRACE = re.compile(
    r"<!--\s*(?:codex-)?keepalive-trace\s*:?\s*#?\s*([^\s>]+?)\s*-->", re.IGNORECASE
)

# A marker's name anywhere, whatever became of its ``<!-- -->`` around it.
_MARKER_NAME = re.compile(r"keepalive-(?:marker|round|trace)\b", re.IGNORECASE)


def unescape_fully(body: str, *, depth: int = 3) -> str:
    """``body`` with HTML entities undone up to ``depth`` times
    (``&amp;lt;`` -> ``&lt;`` -> ``<``): a sanitiser may escape twice."""
    for _ in range(depth):
        undone = html.unescape(body)
        if undone == body:
            break
        body = undone
    return body


def has_damaged_marker(body: str) -> bool:
    """A marker's name is in ``body`` but no well-formed hidden marker is:
    an instruction whose markers were escaped or mangled on the way
    (``&lt;!-- codex-keepalive-marker --&gt;``,
    ``<- After: keepalive-round: 5 -->``)."""
    if parse_markers(body).is_present:
        return False
    return bool(_MARKER_NAME.search(unescape_fully(body)))


def parse_markers(body: str) -> Markers:
    """The markers in ``body``; absent parts stay ``None``/empty.

    A round of 0 is not a round (rounds start at 1).
    """
    round_match = _ROUND.search(body)
    trace_match = _TRACE.search(body)
    round_value = int(round_match.group(1)) if round_match else None
    if round_value is not None and round_value <= 0:
        round_value = None
    trace = trace_match.group(1).rstrip("-").strip() if trace_match else ""
    return Markers(
        has_sentinel=bool(_SENTINEL.search(body)), round=round_value, trace=trace
    )


def render_markers(*, round: int, trace: str) -> str:
    """The one-line marker block of seed form."""
    if round <= 0:
        raise ValueError("round must be >= 1")
    if not trace or any(ch.isspace() or ch == ">" for ch in trace):
        raise ValueError("trace must be a non-empty token without spaces or '>'")
    return (
        "<!-- codex-keepalive-marker --> "
        f"<!-- codex-keepalive-round: {round} --> "
        f"<!-- codex-keepalive-trace: {trace} -->"
    )


def make_trace(pr_number: int, round: int) -> str:
    """``ka-<PR>-r<round>``: unique per PR and round, readable in a summary."""
    return f"ka-{pr_number}-r{round}"
