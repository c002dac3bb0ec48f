"""Student's t and the standard normal distribution for the statistics, from
``scipy.special``'s functions, the very ones ``scipy.stats.t`` and
``scipy.stats.norm`` call (``stdtr``, ``stdtrit``, ``ndtr``, ``ndtri``): the
same numbers, without importing ``scipy.stats`` (about half a second of CPU,
most of the ``--stat`` gate's time on a large run).

``scipy.special`` is imported on first use, so a process that loads the app
registry without computing an interval pays nothing for it.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType


@cache
def _special() -> ModuleType:
    return importlib.import_module("scipy.special")


def t_cdf(x: float, df: float) -> float:
    """``scipy.stats.t.cdf(x, df)``: ``P(T <= x)``, T Student's t."""
    return float(_special().stdtr(df, x))


def t_sf(x: float, df: float) -> float:
    """``scipy.stats.t.sf(x, df)``: ``P(T > x)``."""
    return float(_special().stdtr(df, -x))


def t_ppf(q: float, df: float) -> float:
    """``scipy.stats.t.ppf(q, df)`` for ``0 < q < 1``: the q-quantile."""
    return float(_special().stdtrit(df, q))


def norm_cdf(x: float) -> float:
    """``scipy.stats.norm.cdf(x)``."""
    return float(_special().ndtr(x))


def norm_sf(x: float) -> float:
    """``scipy.stats.norm.sf(x)``."""
    return float(_special().ndtr(-x))


def norm_ppf(q: float) -> float:
    """``scipy.stats.norm.ppf(q)`` for ``0 < q < 1``."""
    return float(_special().ndtri(q))
