"""Run-level figures of claim grounding (``stream.core.claims``).

Reported beside the upstream-compatible metrics, never folded into them:
``hallucination_count`` stays the goal-target figure, and no verdict reads
these. Pure; input is each scenario's ``claims`` document (None for a
scenario that errored before the model answered).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def claim_metrics(documents: Iterable[Mapping[str, Any] | None]) -> dict[str, Any]:
    """``claims_checked`` (claims found in all outputs),
    ``claim_hallucination_count`` (scenarios with at least one ungrounded
    claim) and ``claim_grounding_rate`` (grounded / checked, 1.0 with none
    checked, rounded to 4 places)."""
    checked = ungrounded = scenarios_failing = 0
    for document in documents:
        if not isinstance(document, Mapping):
            continue
        checked += int(document.get("checked", 0))
        missing = len(document.get("ungrounded") or ())
        ungrounded += missing
        scenarios_failing += int(missing > 0)
    rate = round((checked - ungrounded) / checked, 4) if checked else 1.0
    return {
        "claims_checked": checked,
        "claim_hallucination_count": scenarios_failing,
        "claim_grounding_rate": rate,
    }
