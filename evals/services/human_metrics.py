"""People's scores of a run's cases as run metrics (``human.<name>``).

The reviews app hands, for each of its metrics, one value per case (the
mean of the reviewers' values for that case); this module turns each into a
run figure with the same machinery as every other figure of a run
(``evals.core.stats.estimate``: cases grouped by scenario over their
epochs, clustered standard error, t or Wilson interval) and stores it:

- ``Run.metrics[name]``: the estimate (what compare and trends read);
- ``Run.summary["metrics"][name]`` when the run has an eval-store summary
  (what the store export and the CI gate read);
- ``Run.uncertainty["metrics"][name]``: the estimate with its interval, as
  the run page shows every figure.

A call replaces every ``human.`` key of the run at once (in one
transaction, the run row locked): a metric whose scores were all removed
disappears. Their direction comes from the metric registry
(``evals.core.metric_registry``): ``human.<name>`` higher is better,
``human.<name>.<label>`` (the share of one label) neutral.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from typing import Any

from django.db import transaction

from evals.core.run_uncertainty import estimate_to_wire
from evals.core.stats import Estimate, epochs_of, estimate
from evals.core.stats_input import MEAN, StatInputError
from evals.models import Run
from evals.services.harness.finish import stored_run_uncertainty

logger = logging.getLogger(__name__)

HUMAN_PREFIX = "human."


class HumanMetricsInvalid(ValueError):
    """A metric name without the ``human.`` prefix, a value that is not a
    finite number, or case ids the statistics cannot group (more epochs of
    one scenario than a run may have)."""


def _checked(values: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name, by_case in values.items():
        if not name.startswith(HUMAN_PREFIX) or len(name) == len(HUMAN_PREFIX):
            raise HumanMetricsInvalid(f"metric {name!r} must be named human.<name>")
        cases: dict[str, float] = {}
        for case_id, value in by_case.items():
            number = float(value)
            if not math.isfinite(number):
                raise HumanMetricsInvalid(f"{name}: value of {case_id} is not finite")
            cases[str(case_id)] = number
        if cases:
            out[name] = cases
    return out


def _without_human(found: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in found.items() if not k.startswith(HUMAN_PREFIX)}


Values = Mapping[str, Mapping[str, float]]


def _figures(values: Values) -> dict[str, Estimate]:
    try:
        return {
            name: estimate(epochs_of(list(by_case), list(by_case.values())), MEAN)
            for name, by_case in sorted(_checked(values).items())
        }
    except StatInputError as exc:
        raise HumanMetricsInvalid(exc.message) from None


def run_human_metrics_set(
    run_id: str, values: Values | Callable[[], Values]
) -> dict[str, float] | None:
    """Store ``values`` (metric name -> case id -> value) as the run's
    ``human.`` metrics, replacing the ones it had (module docstring).
    ``values`` may be a function that reads them: it is called with the
    run's row locked, so of two callers at once the one that writes last
    has read last (a score saved meanwhile is never lost by an older read).
    Returns the stored estimates by name; None when there is no such run.
    ``HumanMetricsInvalid`` for a name or value that cannot be stored
    (nothing is written)."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(run_id=run_id).first()
        if run is None:
            return None
        figures = _figures(values() if callable(values) else values)
        means = {name: float(found.estimate) for name, found in figures.items()}
        run.metrics = {**_without_human(run.metrics or {}), **means}
        if run.summary:
            summary = dict(run.summary)
            summary["metrics"] = {
                **_without_human(summary.get("metrics") or {}),
                **means,
            }
            run.summary = summary
        # A run finished before figures were stored gets them computed now,
        # so the human figures do not hide the others.
        uncertainty = dict(stored_run_uncertainty(run))
        kept = _without_human(uncertainty.get("metrics") or {})
        wired = {name: estimate_to_wire(found) for name, found in figures.items()}
        if kept or wired:
            uncertainty["metrics"] = {**kept, **wired}
        elif "metrics" in uncertainty:
            uncertainty.pop("metrics")
        run.uncertainty = uncertainty
        run.save(update_fields=["metrics", "summary", "uncertainty", "updated_at"])
    logger.info("[Eval] human_metrics_set runId=%s metrics=%d", run_id, len(means))
    return means
