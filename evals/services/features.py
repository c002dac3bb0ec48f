"""The eval-store feature flags as the services see them: all off by default;
a disabled feature is ``FeatureDisabled`` (409) with the contract's message and
the settings to turn on."""

from __future__ import annotations

from django.conf import settings

from core.errors import Conflict
from evals.core.store import HarnessFlags

SNAPSHOTS_DISABLED = "benchmark baseline snapshots are disabled"


DELTA_REPORTER_DISABLED = "benchmark delta reporter is disabled"


SHADOW_DISABLED = "eval shadow mode is disabled"


class FeatureDisabled(Conflict):
    """An eval-store feature flag is off; ``details["settings"]`` names it."""

    code = "feature_disabled"


def harness_flags() -> HarnessFlags:
    """The contract's feature flags as the settings have them now."""
    return HarnessFlags(
        eval_harness_enabled=settings.EVAL_HARNESS_ENABLED,
        eval_shadow_mode_enabled=settings.EVAL_SHADOW_MODE_ENABLED,
        baseline_snapshots_enabled=settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED,
        delta_reporter_enabled=settings.BENCHMARK_DELTA_REPORTER_ENABLED,
        memory_red_team_bench_enabled=settings.MEMORY_RED_TEAM_BENCH_ENABLED,
    )


def require_shadow_mode() -> None:
    """``FeatureDisabled`` unless both shadow-record flags are on."""
    off = [
        name
        for name in ("EVAL_HARNESS_ENABLED", "EVAL_SHADOW_MODE_ENABLED")
        if not getattr(settings, name)
    ]
    if off:
        raise FeatureDisabled(SHADOW_DISABLED, details={"settings": off})


def require_baseline_snapshots() -> None:
    if not settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED:
        raise FeatureDisabled(
            SNAPSHOTS_DISABLED,
            details={"settings": ["BENCHMARK_BASELINE_SNAPSHOTS_ENABLED"]},
        )


def require_delta_reporter() -> None:
    if not settings.BENCHMARK_DELTA_REPORTER_ENABLED:
        raise FeatureDisabled(
            DELTA_REPORTER_DISABLED,
            details={"settings": ["BENCHMARK_DELTA_REPORTER_ENABLED"]},
        )
