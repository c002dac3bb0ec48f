"""A run's human scores as its ``human.`` metrics.

``run_human_metrics_refresh(run_id)`` reads every score given to a scenario
result of the run, turns them into one value per case and metric
(``reviews.core.human_metrics``) and hands them to the evals app
(``evals.facade.run_human_metrics_set``), which computes each run figure
with its interval the way it does every other figure and stores them in
the run, replacing the ``human.`` metrics it had. Call it after a score of
the run is saved, changed or removed (after the commit: it takes the run's
row lock in its own transaction).
"""

from __future__ import annotations

import logging

from evals.facade import run_human_metrics_set
from reviews.core.human_metrics import RunScore, human_metric_values
from reviews.models import Score, Subject

logger = logging.getLogger(__name__)


def run_scores(run_id: str) -> list[RunScore]:
    """Every score of a scenario result of run ``run_id``, as the core reads them."""
    rows = (
        Score.objects.filter(kind=Subject.SCENARIO_RESULT, run_id=run_id)
        .exclude(case_id="")
        .select_related("config")
        .order_by("id")
    )
    return [
        RunScore(
            config_name=row.config.name,
            config_version=row.config.version,
            config_kind=row.config.kind,
            labels=tuple(str(label) for label in (row.config.labels or ())),
            case_id=row.case_id,
            value_number=row.value_number,
            value_label=row.value_label,
        )
        for row in rows
    ]


def run_human_metrics_refresh(run_id: str) -> dict[str, float] | None:
    """Recompute and store the ``human.`` metrics of run ``run_id`` from its
    scores; the stored means by metric name, or None when the run does not
    exist (scores of a deleted run are kept and no longer counted)."""
    if not run_id:
        return None
    # Read with the run's row locked (see run_human_metrics_set): two
    # scores saved at once both count, whichever refresh ends last.
    stored = run_human_metrics_set(
        run_id, lambda: human_metric_values(run_scores(run_id))
    )
    if stored is None:
        logger.info("[Reviews] human_metrics_skipped runId=%s reason=no_run", run_id)
    return stored
