"""Run-level claim figures (pure)."""

from __future__ import annotations

from evals.core.claim_metrics import claim_metrics
from evals.core.metric_registry import MetricDirection, direction


def test_claim_metrics_count_scenarios_and_claims() -> None:
    documents = [
        {"checked": 3, "ungrounded": [{"name": "zombie"}]},
        {"checked": 1, "ungrounded": []},
        None,  # a scenario that errored before the model answered
        {"checked": 0, "ungrounded": []},
    ]
    assert claim_metrics(documents) == {
        "claims_checked": 4,
        "claim_hallucination_count": 1,
        "claim_grounding_rate": 0.75,
    }
    assert claim_metrics([]) == {
        "claims_checked": 0,
        "claim_hallucination_count": 0,
        "claim_grounding_rate": 1.0,
    }


def test_claim_metrics_are_never_gated() -> None:
    for name in ("claims_checked", "claim_hallucination_count", "claim_grounding_rate"):
        assert direction(name) is MetricDirection.NEUTRAL
