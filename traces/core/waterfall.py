"""A trace's spans laid out as a waterfall: the parent/child tree in
depth-first order, each bar placed by its start and duration.

A span whose parent is not in the trace (not sent, or pruned) is drawn as
a root; a parent chain that loops is cut where it repeats, so every span
appears exactly once. Same input, same rows; no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

# A bar never narrower than this share of the row, so a 0 ms span is seen.
MIN_WIDTH_PCT = 0.5


@dataclass(frozen=True, slots=True)
class WaterfallSpan:
    span_id: str
    parent_span_id: str
    started_at: datetime
    ended_at: datetime


@dataclass(frozen=True, slots=True)
class WaterfallRow:
    """``index`` points into the spans given; offsets are from the trace's start."""

    index: int
    depth: int
    offset_ms: float
    duration_ms: float
    left_pct: float
    width_pct: float


@dataclass(frozen=True, slots=True)
class Waterfall:
    rows: tuple[WaterfallRow, ...]
    total_ms: float


def _ms(later: datetime, earlier: datetime) -> float:
    return (later - earlier).total_seconds() * 1000


def waterfall(spans: Sequence[WaterfallSpan]) -> Waterfall:
    """The rows of ``spans``: parents before their children, siblings by
    start (then by span id), bars as percentages of the whole trace."""
    if not spans:
        return Waterfall(rows=(), total_ms=0.0)
    start = min(s.started_at for s in spans)
    end = max(max(s.ended_at, s.started_at) for s in spans)
    total = _ms(end, start)
    by_id: dict[str, int] = {}
    for i, span in enumerate(spans):
        by_id.setdefault(span.span_id, i)
    children: dict[int, list[int]] = {}
    roots: list[int] = []
    for i, span in enumerate(spans):
        parent = by_id.get(span.parent_span_id) if span.parent_span_id else None
        if parent is None or parent == i or by_id[span.span_id] != i:
            roots.append(i)
        else:
            children.setdefault(parent, []).append(i)

    def order(i: int) -> tuple[datetime, str, int]:
        return (spans[i].started_at, spans[i].span_id, i)

    rows: list[WaterfallRow] = []
    seen: set[int] = set()

    def row(i: int, depth: int) -> WaterfallRow:
        span = spans[i]
        offset = _ms(span.started_at, start)
        duration = max(_ms(span.ended_at, span.started_at), 0.0)
        left = offset / total * 100 if total > 0 else 0.0
        width = duration / total * 100 if total > 0 else 100.0
        width = min(max(width, MIN_WIDTH_PCT), max(100.0 - left, MIN_WIDTH_PCT))
        return WaterfallRow(
            index=i,
            depth=depth,
            offset_ms=round(offset, 3),
            duration_ms=round(duration, 3),
            left_pct=round(min(left, 100.0 - MIN_WIDTH_PCT), 3),
            width_pct=round(width, 3),
        )

    # Depth-first with a stack of its own: a chain of thousands of nested
    # spans is data, not a reason for a RecursionError.
    pending = [(root, 0) for root in sorted(roots, key=order, reverse=True)]
    # Spans only reachable through a loop of parents: drawn as roots, last.
    looped = sorted(set(range(len(spans))) - _reachable(roots, children), key=order)
    pending[:0] = [(i, 0) for i in reversed(looped)]
    while pending:
        i, depth = pending.pop()
        if i in seen:
            continue
        seen.add(i)
        rows.append(row(i, depth))
        kids = sorted(children.get(i, ()), key=order, reverse=True)
        pending.extend((kid, depth + 1) for kid in kids)
    return Waterfall(rows=tuple(rows), total_ms=round(total, 3))


def _reachable(roots: list[int], children: dict[int, list[int]]) -> set[int]:
    found: set[int] = set()
    stack = list(roots)
    while stack:
        i = stack.pop()
        if i not in found:
            found.add(i)
            stack.extend(children.get(i, ()))
    return found
