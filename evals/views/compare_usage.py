"""The compare page's "Cost and latency" block: each benchmark's two runs,
what their model calls cost and how long they took, as rows of a table.

Thin: the figures come from ``evals.services.compare_usage`` (and the
numbers from ``evals.core.usage_deltas``); this module only writes them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from evals.core.compare_stats import VERDICT_CLASSES, VERDICT_MEANINGS
from evals.core.usage_deltas import PairedMean, PercentileChange, Total, UsageDelta
from evals.services.compare_usage import BenchmarkUsage


@dataclass(frozen=True, slots=True)
class UsageRow:
    """One figure of both runs as the table writes it."""

    label: str
    base: str
    candidate: str
    change: str
    interval: str = ""
    verdict: str = ""
    verdict_css: str = ""
    verdict_meaning: str = ""
    note: str = ""
    css: str = ""


def money(value: float | None, *, signed: bool = False) -> str:
    """US dollars with the digits a model call's cost needs."""
    if value is None or not math.isfinite(value):
        return "unknown"
    sign = ("+" if value > 0 else "−" if value < 0 else "") if signed else ""
    size = abs(value) if signed else value
    if size == 0:
        return "$0"
    # Rounded first: 0.009999999 (a sum of floats) is written $0.0100.
    places = 2 if round(size, 2) >= 1 else 4 if round(size, 4) >= 0.01 else 6
    return f"{sign}${size:,.{places}f}"


def millis(value: float | None, *, signed: bool = False) -> str:
    if value is None or not math.isfinite(value):
        return "unknown"
    sign = "+" if signed and value > 0 else "−" if signed and value < 0 else ""
    size = abs(value) if signed else value
    if round(size, 1) >= 100:
        return f"{sign}{size:,.0f} ms"
    return f"{sign}{size:.1f} ms"


def count(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "unknown"
    sign = "+" if signed and value > 0 else "−" if signed and value < 0 else ""
    return f"{sign}{abs(int(value)) if signed else int(value):,}"


def percent(value: float | None) -> str:
    if value is None or not math.isfinite(value) or round(value, 2) == 0:
        return ""
    return f" ({'+' if value > 0 else '−' if value < 0 else ''}{abs(value):.0%})"


Format = Callable[..., str]


def _change_css(change: float | None) -> str:
    # Lower is better for every figure of this block.
    if change is None or change == 0:
        return ""
    return "bad" if change > 0 else "good"


def _total_row(label: str, total: Total, fmt: Format, note: str = "") -> UsageRow:
    change = total.change
    return UsageRow(
        label=label,
        base=fmt(total.base),
        candidate=fmt(total.candidate),
        change=fmt(change, signed=True) + percent(total.relative)
        if change is not None
        else "unknown",
        note=note,
        css=_change_css(change),
    )


def _mean_row(label: str, mean: PairedMean, fmt: Format) -> UsageRow:
    c = mean.comparison
    if c is None:
        return UsageRow(label, "unknown", "unknown", "unknown", note=mean.note)
    base = c.base_mean if math.isfinite(c.base_mean) else None
    candidate = c.candidate_mean if math.isfinite(c.candidate_mean) else None
    relative = None if not base else (c.delta / base)
    paired = f"{c.n} scenario{'s' if c.n != 1 else ''} in both runs" + (
        f" × {c.k} repeats" if c.k > 1 else ""
    )
    return UsageRow(
        label=label,
        base=fmt(base),
        candidate=fmt(candidate),
        change=fmt(c.delta, signed=True) + percent(relative),
        interval=f"[{fmt(c.interval.low, signed=True)}, "
        f"{fmt(c.interval.high, signed=True)}]"
        if mean.has_interval
        else "",
        verdict=c.verdict.value if mean.has_interval else "",
        verdict_css=VERDICT_CLASSES[c.verdict],
        verdict_meaning=VERDICT_MEANINGS[c.verdict],
        note="; ".join(part for part in (paired, mean.note) if part),
        css=_change_css(c.delta),
    )


def _percentile_row(label: str, p: PercentileChange) -> UsageRow:
    row = _total_row(label, p.value, millis, p.note)
    if p.low is None or p.high is None:
        return row
    return UsageRow(
        label=row.label,
        base=row.base,
        candidate=row.candidate,
        change=row.change,
        interval=f"[{millis(p.low, signed=True)}, {millis(p.high, signed=True)}]",
        note=f"interval: {p.scenarios} scenarios in both runs, resampled",
        css=row.css,
    )


def usage_rows(delta: UsageDelta) -> list[UsageRow]:
    """The rows of one benchmark's table (none without model calls)."""
    if not delta.has_calls:
        return []
    return [
        _total_row("Total cost", delta.cost, money, delta.cost_note),
        _mean_row("Cost per case (mean)", delta.cost_per_case, money),
        _mean_row("Model time per case (mean)", delta.latency_per_case, millis),
        _percentile_row("Model time per case, median (p50)", delta.latency_p50),
        _percentile_row("Model time per case, p95", delta.latency_p95),
        _total_row("Input tokens", delta.input_tokens, count),
        _total_row("Output tokens", delta.output_tokens, count),
        _total_row(
            "Model calls",
            Total(float(delta.base_calls), float(delta.candidate_calls)),
            count,
        ),
    ]


def usage_context(usage: Sequence[BenchmarkUsage]) -> dict[str, Any]:
    """What ``evals/includes/usage_deltas.html`` reads."""
    blocks = [(item, usage_rows(item.delta)) for item in usage]
    return {
        "usage_blocks": blocks,
        "usage_any_calls": any(rows for _, rows in blocks),
        "usage_several": len(blocks) > 1,
    }
