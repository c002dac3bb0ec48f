"""Usage figures as the pages show them, and latency percentiles.

An unknown figure is never shown as 0: absent token counts read "not
reported", a cost the price table could not compute reads "unknown" with
the count of unpriced calls. Deterministic, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

NOT_REPORTED = "not reported"
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Percentiles:
    """p50, p95 and p99 of ``count`` values (numpy's linear method)."""

    count: int
    p50: float
    p95: float
    p99: float


def latency_percentiles(values: Sequence[float]) -> Percentiles | None:
    """The percentiles of ``values``; None when there are none."""
    if not values:
        return None
    p50, p95, p99 = (
        float(v) for v in np.percentile(np.asarray(values, dtype=float), [50, 95, 99])
    )
    return Percentiles(count=len(values), p50=p50, p95=p95, p99=p99)


def usd_text(cost: Decimal) -> str:
    """``$1.23`` from a dollar up, ``$0.0123`` from a cent up, below that
    three significant digits (``$0.0000152``), and ``$0`` for zero."""
    if cost == 0:
        return "$0"
    if abs(cost) >= 1:
        return f"${cost:,.2f}"
    if abs(cost) >= Decimal("0.01"):
        return f"${cost:.4f}"
    digits = -cost.copy_abs().adjusted() + 2
    return f"${cost:.{digits}f}"


def cost_text(cost: Decimal | None, *, unpriced: int = 0) -> str:
    """A total cost: the priced part, plus "unknown" and how many calls had
    no price when some had none; "unknown" alone when none was priced."""
    calls = f"{unpriced} unpriced call{'s' if unpriced != 1 else ''}"
    if unpriced and cost is None:
        return f"{UNKNOWN} ({calls})"
    if unpriced:
        return f"{usd_text(cost or Decimal(0))} + {UNKNOWN} ({calls})"
    if cost is None:
        return UNKNOWN
    return usd_text(cost)


def tokens_text(count: int | None) -> str:
    """``12,345``, or "not reported" when the source did not say."""
    return NOT_REPORTED if count is None else f"{count:,}"


def latency_text(ms: float | None) -> str:
    """``850 ms``, ``4.2 ms`` under 10 ms, ``1.25 s`` from a second up."""
    if ms is None:
        return NOT_REPORTED
    if ms >= 1000:
        return f"{ms / 1000:,.2f} s"
    if ms < 10:
        return f"{ms:.1f} ms"
    return f"{ms:.0f} ms"
