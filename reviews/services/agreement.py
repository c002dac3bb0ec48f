"""How far reviewers agree, per score config version.

``config_agreements(scores)`` reads the given scores (what the caller may
see, narrowed to one queue or not), groups them by config version and
builds each version's reliability matrix (``reviews.core.agreement``): one
row per giver (a person, or an API key of an external judge), one column
per subject, each cell the value given. A numeric or yes/no score is its
number; a categorical score is its label's position among the config's
labels (a label no longer among them is left out).

Per version it answers Cohen's kappa when exactly two givers scored (a
numeric config also gets the quadratic-weighted kappa) and Krippendorff's
alpha, nominal for every kind and interval for numeric configs (for a
yes/no score the two are the same number; for labels, distances between
positions mean nothing). Reads only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from reviews.core.agreement import (
    Agreement,
    Level,
    Weights,
    kappa_of_matrix,
    krippendorff_alpha,
    reliability_matrix,
)
from reviews.models import ReviewQueue, Score, ScoreConfig
from reviews.selectors import scores_visible

# (subject kind, subject ref, author id, API key id, number, label)
Row = tuple[str, str, int | None, int | None, float | None, str]


@dataclass(frozen=True, slots=True)
class ConfigAgreement:
    """The agreement figures of one config version (module docstring);
    ``None`` where the figure does not apply to the config's kind."""

    config: ScoreConfig
    subjects: int
    givers: int
    scores: int
    kappa: Agreement
    kappa_quadratic: Agreement | None
    alpha_nominal: Agreement
    alpha_interval: Agreement | None


def giver_key(author_id: int | None, api_key_id: int | None) -> str:
    """Who gave a score, as one key: ``user:<id>`` or ``key:<id>``."""
    return f"user:{author_id}" if author_id is not None else f"key:{api_key_id}"


def cell_value(
    config: ScoreConfig, value_number: float | None, value_label: str
) -> float | None:
    """A score's value in the reliability matrix (module docstring)."""
    if config.kind == ScoreConfig.Kind.CATEGORICAL:
        labels = [str(label) for label in config.labels or ()]
        return float(labels.index(value_label)) if value_label in labels else None
    return value_number


def matrix_of(
    config: ScoreConfig,
    rows: Iterable[Row],
) -> tuple[list[str], list[str], list[list[float | None]]]:
    """``(givers, subjects, cells)`` of a config's scores, each row
    ``(kind, ref, author_id, api_key_id, value_number, value_label)``;
    givers and subjects sorted."""
    values: dict[str, dict[str, float]] = defaultdict(dict)
    for kind, ref, author_id, key_id, number, label in rows:
        value = cell_value(config, number, label)
        if value is not None:
            values[giver_key(author_id, key_id)][f"{kind}:{ref}"] = value
    givers = sorted(values)
    subjects = sorted({subject for row in values.values() for subject in row})
    cells = [[values[giver].get(subject) for subject in subjects] for giver in givers]
    return givers, subjects, cells


def config_agreement(
    config: ScoreConfig,
    rows: Iterable[Row],
) -> ConfigAgreement:
    """The figures of one config version from its score rows (``matrix_of``)."""
    givers, subjects, cells = matrix_of(config, rows)
    matrix = reliability_matrix(cells)
    numeric = config.kind == ScoreConfig.Kind.NUMERIC
    return ConfigAgreement(
        config=config,
        subjects=len(subjects),
        givers=len(givers),
        scores=sum(v is not None for row in cells for v in row),
        kappa=kappa_of_matrix(matrix),
        kappa_quadratic=(
            kappa_of_matrix(matrix, weights=Weights.QUADRATIC) if numeric else None
        ),
        alpha_nominal=krippendorff_alpha(matrix, Level.NOMINAL),
        alpha_interval=krippendorff_alpha(matrix, Level.INTERVAL) if numeric else None,
    )


def agreement_scores(*, user: Any, queue: ReviewQueue | None = None) -> QuerySet[Score]:
    """The scores ``user`` may read (``reviews.selectors.scores_visible``),
    only those given in ``queue`` when one is named."""
    scores = scores_visible(user=user)
    return scores if queue is None else scores.filter(item__queue=queue)


def _rows(scores: QuerySet[Score]) -> Any:
    return scores.order_by().values_list(
        "config_id",
        "kind",
        "ref",
        "author_id",
        "api_key_id",
        "value_number",
        "value_label",
    )


def config_agreement_of(
    config: ScoreConfig, scores: QuerySet[Score]
) -> ConfigAgreement:
    """The figures of ``config`` over its scores among ``scores``."""
    rows = _rows(scores.filter(config=config)).iterator(chunk_size=2000)
    return config_agreement(config, (tuple(row[1:]) for row in rows))


def config_agreements(scores: QuerySet[Score]) -> list[ConfigAgreement]:
    """The figures of every config version among ``scores``, by config name
    then newest version first."""
    rows_by_config: dict[int, list[Row]] = defaultdict(list)
    listed = _rows(scores).iterator(chunk_size=2000)
    for config_id, kind, ref, author_id, key_id, number, label in listed:
        rows_by_config[config_id].append((kind, ref, author_id, key_id, number, label))
    configs = ScoreConfig.objects.filter(pk__in=list(rows_by_config)).order_by(
        "name", "-version"
    )
    return [config_agreement(config, rows_by_config[config.pk]) for config in configs]
