"""People's scores of a run's cases as per-case values of run metrics.

A score config named ``quality`` gives:

- numeric: ``human.quality``, each case's value the mean of its reviewers'
  numbers;
- boolean: ``human.quality``, each case's value the share of its reviewers
  who said yes (a run's figure is then the share of yes);
- categorical: one metric per label, ``human.quality.<label>``, each case's
  value the share of its reviewers who gave that label (every label of the
  config, so a label nobody chose is a metric of 0).

Only the scores given under the newest version of a config that has scores
in the run count: a new version may change the range or the labels, and
values of two versions are not one measurement. The run figure of each
metric (mean and interval over the cases) is computed by the evals app.
Pure: no Django.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

NUMERIC = "numeric"
BOOLEAN = "boolean"
CATEGORICAL = "categorical"
PREFIX = "human."


@dataclass(frozen=True, slots=True)
class RunScore:
    """One person's (or one key's) score of one case of a run."""

    config_name: str
    config_version: int
    config_kind: str
    labels: tuple[str, ...]
    case_id: str
    value_number: float | None
    value_label: str


def metric_name(config_name: str, label: str | None = None) -> str:
    """``human.<config>`` or, for one label's share, ``human.<config>.<label>``."""
    base = f"{PREFIX}{config_name}"
    return base if label is None else f"{base}.{label}"


def _case_value(score: RunScore) -> float | None:
    if score.config_kind in (NUMERIC, BOOLEAN):
        return score.value_number
    return None


def human_metric_values(scores: Iterable[RunScore]) -> dict[str, dict[str, float]]:
    """Metric name -> case id -> value (module docstring). A config kind
    this module does not know, or a score without a value, is left out."""
    newest: dict[str, int] = {}
    listed = list(scores)
    for score in listed:
        newest[score.config_name] = max(
            newest.get(score.config_name, score.config_version), score.config_version
        )
    chosen = [s for s in listed if s.config_version == newest[s.config_name]]
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for score in chosen:
        if score.config_kind == CATEGORICAL:
            if not score.value_label:
                continue
            labels = score.labels or (score.value_label,)
            for label in labels:
                value = 1.0 if score.value_label == label else 0.0
                sums[metric_name(score.config_name, label)][score.case_id].append(value)
            continue
        number = _case_value(score)
        if number is None:
            continue
        sums[metric_name(score.config_name)][score.case_id].append(float(number))
    return {
        name: {case: sum(v) / len(v) for case, v in sorted(by_case.items())}
        for name, by_case in sorted(sums.items())
    }
