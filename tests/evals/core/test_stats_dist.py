"""evals.core.stats_dist gives scipy.stats' numbers exactly (the gate's
reports print them to the last digit), without importing scipy.stats."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from scipy import stats as sps

from evals.core import stats_dist

ROOT = Path(__file__).resolve().parents[3]
POINTS = (-1e6, -37.5, -3.2, -1.0, -0.0, 0.0, 1e-12, 0.4, 1.96, 8.0, 1e6)
DEGREES = (1, 2, 5, 29, 149, 9_999, 1_000_000)
QUANTILES = (1e-9, 0.025, 0.2, 0.5, 0.8, 0.975, 1 - 1e-9)


@pytest.mark.parametrize("df", DEGREES)
def test_t_cdf_sf_and_ppf_equal_scipy_stats_exactly(df: int) -> None:
    for x in POINTS:
        assert stats_dist.t_cdf(x, df) == float(sps.t.cdf(x, df))
        assert stats_dist.t_sf(x, df) == float(sps.t.sf(x, df))
    for q in QUANTILES:
        assert stats_dist.t_ppf(q, df) == float(sps.t.ppf(q, df))


def test_normal_cdf_sf_and_ppf_equal_scipy_stats_exactly() -> None:
    for x in POINTS:
        assert stats_dist.norm_cdf(x) == float(sps.norm.cdf(x))
        assert stats_dist.norm_sf(x) == float(sps.norm.sf(x))
    for q in QUANTILES:
        assert stats_dist.norm_ppf(q) == float(sps.norm.ppf(q))


def test_computing_a_t_quantile_does_not_import_scipy_stats() -> None:
    probe = (
        "import sys; from evals.core import stats_dist; stats_dist.t_ppf(0.975, 9);"
        " stats_dist.norm_sf(1.0); print('scipy.stats' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
