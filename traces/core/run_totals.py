"""A run's model calls in total, as ``eval_run`` prints them at its end.

``RunUsageTotals`` holds the sums (``traces.selectors.run_usage_totals``
reads them); ``usage_lines`` words them. Unknown is never shown as 0: a
run whose calls reported no tokens reads "not reported by the model", a
cost only over the calls the price table could price, with the unpriced
ones counted. Deterministic, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True, slots=True)
class RunUsageTotals:
    """Sums over a run's model calls; a token sum is ``None`` when no call
    reported that count, ``cost_usd`` when no call was priced."""

    calls: int = 0
    failed_calls: int = 0
    calls_with_usage: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None
    priced_calls: int = 0
    cost_usd: Decimal | None = None
    price_versions: tuple[str, ...] = ()

    @property
    def unpriced_calls(self) -> int:
        return self.calls - self.priced_calls


def _count(value: int | None) -> str:
    return "not reported" if value is None else f"{value:,}"


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def _usd(cost: Decimal) -> str:
    """Four decimals from a cent up; below, two significant digits (a run
    of a few small calls costs fractions of a cent)."""
    if cost == 0 or abs(cost) >= Decimal("0.01"):
        return f"${cost:.4f}"
    return f"${cost:.{-cost.copy_abs().adjusted() + 1}f}"


def _tokens_line(totals: RunUsageTotals) -> str:
    if totals.calls_with_usage == 0:
        return "tokens: not reported by the model"
    line = (
        f"tokens: input {_count(totals.input_tokens)} "
        f"output {_count(totals.output_tokens)} "
        f"(cached {_count(totals.cached_input_tokens)})"
    )
    if totals.reasoning_tokens is not None:
        line += f" reasoning {totals.reasoning_tokens:,}"
    silent = totals.calls - totals.calls_with_usage
    if silent:
        line += f"; {_plural(silent, 'call')} of {totals.calls:,} reported none"
    return line


def _cost_line(totals: RunUsageTotals) -> str:
    unpriced = totals.unpriced_calls
    if totals.cost_usd is None or totals.priced_calls == 0:
        return f"cost: unknown ({_plural(unpriced, 'call')} unpriced)"
    line = f"cost: {_usd(totals.cost_usd)}"
    if unpriced:
        line += f" for {totals.priced_calls:,} of {totals.calls:,} calls"
    notes = []
    if totals.price_versions:
        notes.append("priced by table " + ", ".join(totals.price_versions))
    if unpriced:
        notes.append(f"{_plural(unpriced, 'call')} unpriced")
    return line + (f" ({'; '.join(notes)})" if notes else "")


def usage_lines(totals: RunUsageTotals) -> list[str]:
    """What ``eval_run`` prints about a run's model calls: one line when it
    made none, else the calls, the tokens and the cost."""
    if totals.calls == 0:
        return ["model calls: none recorded"]
    failed = f" ({totals.failed_calls:,} failed)" if totals.failed_calls else ""
    return [
        f"model calls: {totals.calls:,}{failed}",
        _tokens_line(totals),
        _cost_line(totals),
    ]
