"""evals.services.features: the eval-store feature flags as the services see
them; a feature that is off is a ``FeatureDisabled`` naming its settings."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import Conflict
from evals.core.store import HarnessFlags
from evals.services.features import (
    FeatureDisabled,
    harness_flags,
    require_baseline_snapshots,
    require_delta_reporter,
    require_shadow_mode,
)

FLAGS = (
    "EVAL_HARNESS_ENABLED",
    "EVAL_SHADOW_MODE_ENABLED",
    "BENCHMARK_BASELINE_SNAPSHOTS_ENABLED",
    "BENCHMARK_DELTA_REPORTER_ENABLED",
    "MEMORY_RED_TEAM_BENCH_ENABLED",
)


@pytest.fixture
def all_off(settings: Any) -> Any:
    for name in FLAGS:
        setattr(settings, name, False)
    return settings


def test_harness_flags_read_the_settings_as_they_are_now(all_off: Any) -> None:
    assert harness_flags() == HarnessFlags()
    all_off.EVAL_SHADOW_MODE_ENABLED = True
    all_off.MEMORY_RED_TEAM_BENCH_ENABLED = True
    assert harness_flags() == HarnessFlags(
        eval_shadow_mode_enabled=True, memory_red_team_bench_enabled=True
    )


def test_a_disabled_feature_is_a_409_conflict_with_its_code() -> None:
    assert issubclass(FeatureDisabled, Conflict)
    assert FeatureDisabled.code == "feature_disabled"


@pytest.mark.parametrize(
    ("on", "off"),
    [
        ((), ["EVAL_HARNESS_ENABLED", "EVAL_SHADOW_MODE_ENABLED"]),
        (("EVAL_HARNESS_ENABLED",), ["EVAL_SHADOW_MODE_ENABLED"]),
        (("EVAL_SHADOW_MODE_ENABLED",), ["EVAL_HARNESS_ENABLED"]),
    ],
)
def test_shadow_mode_needs_both_flags_and_names_those_that_are_off(
    all_off: Any, on: tuple[str, ...], off: list[str]
) -> None:
    for name in on:
        setattr(all_off, name, True)
    with pytest.raises(FeatureDisabled) as caught:
        require_shadow_mode()
    assert caught.value.message == "eval shadow mode is disabled"
    assert caught.value.details == {"settings": off}


def test_shadow_mode_with_both_flags_on_passes(all_off: Any) -> None:
    all_off.EVAL_HARNESS_ENABLED = True
    all_off.EVAL_SHADOW_MODE_ENABLED = True
    require_shadow_mode()


@pytest.mark.parametrize(
    ("require", "setting", "message"),
    [
        (
            require_baseline_snapshots,
            "BENCHMARK_BASELINE_SNAPSHOTS_ENABLED",
            "benchmark baseline snapshots are disabled",
        ),
        (
            require_delta_reporter,
            "BENCHMARK_DELTA_REPORTER_ENABLED",
            "benchmark delta reporter is disabled",
        ),
    ],
)
def test_each_feature_is_refused_while_its_flag_is_off_and_passes_once_on(
    all_off: Any, require: Any, setting: str, message: str
) -> None:
    with pytest.raises(FeatureDisabled) as caught:
        require()
    assert (caught.value.message, caught.value.details) == (
        message,
        {"settings": [setting]},
    )
    setattr(all_off, setting, True)
    require()
