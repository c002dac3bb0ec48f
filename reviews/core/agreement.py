"""How far reviewers agree: Cohen's kappa and Krippendorff's alpha.

Both read a *reliability matrix*: one row per reviewer, one column per
item, each cell the value that reviewer gave that item or NaN where they
gave none. Values are numbers; a categorical score is coded as the
position of its label in the config (the services do that).

- ``cohen_kappa(first, second)``: two reviewers, over the items both
  scored. ``kappa = (p_o - p_e) / (1 - p_e)`` unweighted (nominal), or
  ``1 - sum(w * O) / sum(w * E)`` with weights ``|i - j|`` (``linear``) or
  ``(i - j)^2`` (``quadratic``) between category positions, the categories
  sorted (or in the order given), O the observed and E the expected
  (product of the margins) proportions.
- ``krippendorff_alpha(matrix, level)``: any number of reviewers, missing
  values allowed. The items scored by at least two reviewers give the
  coincidence matrix ``o[c, k] = sum over items of (pairs c-k within the
  item) / (m_u - 1)``; with ``n_c`` its margins and ``n`` their sum,
  ``alpha = 1 - (n - 1) * sum(o * d) / sum(n_c * n_k * d)``, ``d`` the
  distance between two values: 0 or 1 (``nominal``) or the squared
  difference (``interval``).

An undefined figure is ``None`` with a reason, never NaN and never an
error: no item scored by two reviewers (nothing to compare), or every value
the same, so the agreement expected by chance is already perfect and the
ratio is 0/0 (``UNDEFINED_ONE_VALUE``). Pure numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

NO_PAIRS = "no item was scored by two reviewers"
UNDEFINED_ONE_VALUE = "every score has the same value, so agreement is undefined"
NOT_TWO = "kappa compares exactly two reviewers"


class Level(StrEnum):
    """The level of measurement: how far apart two values are."""

    NOMINAL = "nominal"
    INTERVAL = "interval"


class Weights(StrEnum):
    """Cohen's kappa weights between category positions."""

    NONE = "none"
    LINEAR = "linear"
    QUADRATIC = "quadratic"


@dataclass(frozen=True, slots=True)
class Agreement:
    """A figure of agreement, or None with the reason it is undefined.

    ``items``: the items that entered it (scored by two reviewers or more),
    ``reviewers``: how many reviewers gave at least one of those scores,
    ``values``: how many scores entered it (pairable values)."""

    value: float | None
    items: int
    reviewers: int
    values: int
    reason: str = ""


def reliability_matrix(rows: Sequence[Sequence[float | None]]) -> FloatArray:
    """Rows of values (None or NaN: no value) as a float matrix, one row
    per reviewer; ``ValueError`` when the rows differ in length or a value
    is infinite."""
    if not rows:
        return np.empty((0, 0), dtype=np.float64)
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        raise ValueError("every reviewer's row must have one cell per item")
    matrix = np.array(
        [[np.nan if v is None else float(v) for v in row] for row in rows],
        dtype=np.float64,
    )
    if np.isinf(matrix).any():
        raise ValueError("a value is infinite")
    return matrix


def _distance(values: FloatArray, level: Level) -> FloatArray:
    if level == Level.NOMINAL:
        unequal: FloatArray = (values[:, None] != values[None, :]).astype(np.float64)
        return unequal
    diff: FloatArray = values[:, None] - values[None, :]
    return diff * diff


def krippendorff_alpha(
    matrix: FloatArray | Sequence[Sequence[float | None]],
    level: Level = Level.NOMINAL,
) -> Agreement:
    """Krippendorff's alpha of a reliability matrix (module docstring)."""
    data = (
        np.asarray(matrix, dtype=np.float64)
        if isinstance(matrix, np.ndarray)
        else reliability_matrix(matrix)
    )
    if data.ndim != 2 or data.size == 0:
        return Agreement(None, 0, 0, 0, NO_PAIRS)
    present = ~np.isnan(data)
    per_item = present.sum(axis=0)
    pairable = per_item >= 2
    if not pairable.any():
        return Agreement(None, 0, 0, 0, NO_PAIRS)
    data = data[:, pairable]
    present = present[:, pairable]
    m_u = per_item[pairable].astype(np.float64)
    reviewers = int(present.any(axis=1).sum())
    values = np.unique(data[present])
    # counts[u, c]: how many reviewers gave item u the value values[c]
    codes = np.searchsorted(values, np.where(present, data, values[0]))
    counts = np.zeros((data.shape[1], len(values)), dtype=np.float64)
    for row_codes, row_present in zip(codes, present, strict=True):
        np.add.at(counts, (np.nonzero(row_present)[0], row_codes[row_present]), 1.0)
    weighted = counts / (m_u - 1.0)[:, None]
    coincidences = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    margins = coincidences.sum(axis=1)
    n = float(margins.sum())
    items, scored = int(data.shape[1]), int(present.sum())
    distance = _distance(values, level)
    expected = float(margins @ distance @ margins)
    if len(values) < 2 or expected <= 0.0:
        return Agreement(None, items, reviewers, scored, UNDEFINED_ONE_VALUE)
    observed = float((coincidences * distance).sum())
    return Agreement(1.0 - (n - 1.0) * observed / expected, items, reviewers, scored)


def cohen_kappa(
    first: Sequence[float | None],
    second: Sequence[float | None],
    *,
    weights: Weights = Weights.NONE,
    categories: Sequence[float] | None = None,
) -> Agreement:
    """Cohen's kappa of two reviewers over the items both scored (module
    docstring). ``categories``: every category in order (the weights use
    their positions); by default the values seen, sorted. ``ValueError``
    when the two rows differ in length or a value is not in ``categories``."""
    pair = reliability_matrix([list(first), list(second)])
    if pair.size == 0:
        return Agreement(None, 0, 0, 0, NO_PAIRS)
    both = ~np.isnan(pair).any(axis=0)
    a, b = pair[0, both], pair[1, both]
    if a.size == 0:
        return Agreement(None, 0, 0, 0, NO_PAIRS)
    order = (
        np.asarray(list(categories), dtype=np.float64)
        if categories is not None
        else np.unique(np.concatenate([a, b]))
    )
    index = {float(value): i for i, value in enumerate(order)}
    try:
        ia = np.array([index[float(v)] for v in a])
        ib = np.array([index[float(v)] for v in b])
    except KeyError as missing:
        raise ValueError(f"value {missing.args[0]} is not a category") from None
    k = len(order)
    observed = np.zeros((k, k), dtype=np.float64)
    np.add.at(observed, (ia, ib), 1.0)
    observed /= a.size
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    positions = np.arange(k, dtype=np.float64)
    gap = np.abs(positions[:, None] - positions[None, :])
    if weights == Weights.NONE:
        weight = (gap > 0).astype(np.float64)
    elif weights == Weights.LINEAR:
        weight = gap
    else:
        weight = gap * gap
    chance = float((weight * expected).sum())
    counted = int(a.size)
    if chance <= 0.0:
        return Agreement(None, counted, 2, 2 * counted, UNDEFINED_ONE_VALUE)
    value = 1.0 - float((weight * observed).sum()) / chance
    return Agreement(value, counted, 2, 2 * counted)


def kappa_of_matrix(
    matrix: FloatArray, *, weights: Weights = Weights.NONE
) -> Agreement:
    """Cohen's kappa of a reliability matrix with exactly two reviewers who
    scored something; None with ``NOT_TWO`` otherwise (alpha covers more)."""
    active = [row for row in matrix if (~np.isnan(row)).any()]
    if len(active) != 2:
        return Agreement(None, 0, len(active), 0, NOT_TWO)
    return cohen_kappa(list(active[0]), list(active[1]), weights=weights)


# Landis and Koch's words for kappa (1977), Krippendorff's for alpha (2004):
# below 0.667 no conclusion should rest on the data, 0.8 and above is reliable.
_KAPPA_WORDS = (
    (0.81, "almost perfect"),
    (0.61, "substantial"),
    (0.41, "moderate"),
    (0.21, "fair"),
    (0.0, "slight"),
)
_ALPHA_WORDS = (
    (0.8, "reliable"),
    (0.667, "tentative"),
)


def kappa_words(value: float) -> str:
    """Landis and Koch's word for a kappa: ``poor`` below 0 up to
    ``almost perfect`` from 0.81."""
    for floor, word in _KAPPA_WORDS:
        if value >= floor:
            return word
    return "poor"


def alpha_words(value: float) -> str:
    """Krippendorff's reading of an alpha: ``reliable`` from 0.8,
    ``tentative`` from 0.667, ``unreliable`` below."""
    for floor, word in _ALPHA_WORDS:
        if value >= floor:
            return word
    return "unreliable"
