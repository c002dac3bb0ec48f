"""Repeated trials of a scenario run: case ids per epoch, seeds, scripted
replay, the reducer, and the stored uncertainty of every figure."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from core.errors import SchemaInvalid
from evals.core.run_uncertainty import estimate_to_wire
from evals.core.stats import epochs_of, estimate
from evals.core.stats_input import parse_reducer
from evals.models import Run
from evals.services.harness.create import eval_run_create
from tests.evals.harness_support import SMOKE_IDS, run_suite, stored_counts

pytestmark = [pytest.mark.django_db]


def test_three_repeats_store_three_cases_per_scenario_with_epoch_ids(
    suites: Path,
) -> None:
    run = run_suite(suites / "smoke.jsonl", repeats=3)
    ids = sorted(run.case_results.values_list("case_id", flat=True))
    assert ids == sorted(f"{s}#{e}" for s in SMOKE_IDS for e in range(3))
    assert run.total_cases == 3 * len(SMOKE_IDS)
    assert run.config["repeats"] == 3
    assert run.status == Run.Status.COMPLETED
    assert (Path(run.artifacts_dir) / "scenarios" / f"{SMOKE_IDS[0]}#2.json").is_file()


def test_one_repeat_keeps_scenario_ids_and_config_keys(suites: Path) -> None:
    run = run_suite(suites / "smoke.jsonl")
    assert sorted(run.case_results.values_list("case_id", flat=True)) == sorted(
        SMOKE_IDS
    )
    assert "repeats" not in run.config
    assert "reducer" not in run.config
    assert run.uncertainty["repeats"] == 1


def test_scripted_replay_has_no_within_scenario_variance(suites: Path) -> None:
    run = run_suite(suites / "smoke.jsonl", repeats=4)
    assert run.uncertainty["withinZero"] is True
    for figure in run.uncertainty["metrics"].values():
        assert figure["k"] == 4
        assert figure["withinVariance"] <= 1e-12


def test_script_lines_per_epoch_are_used_for_their_epoch(suites: Path) -> None:
    script = suites / "smoke.script.jsonl"
    lines = [json.loads(x) for x in script.read_text("utf-8").splitlines() if x]
    first = lines[0]
    # Epoch 1 of the first scenario says nothing actionable.
    extra = {**first, "scenario_id": f"{first['scenario_id']}#1", "output": "Idle."}
    script.write_text(
        script.read_text("utf-8").rstrip("\n") + "\n" + json.dumps(extra) + "\n",
        encoding="utf-8",
    )
    run = run_suite(suites / "smoke.jsonl", repeats=2)
    epoch_1 = run.case_results.get(case_id=f"{first['scenario_id']}#1")
    epoch_0 = run.case_results.get(case_id=f"{first['scenario_id']}#0")
    assert epoch_1.details["thought"] == "Idle."
    assert epoch_0.details["thought"] != "Idle."


def test_each_epoch_gets_its_own_seed(
    suites: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        run_suite(suites / "smoke.jsonl", repeats=3, seed=10)
    seeds = {
        m.split("id=")[1].split()[0]: m.rsplit("seed=", 1)[1]
        for m in caplog.messages
        if m.startswith("[Eval] scenario_run")
    }
    assert seeds[f"{SMOKE_IDS[0]}#0"] == "10"
    assert seeds[f"{SMOKE_IDS[0]}#1"] == "11"
    assert seeds[f"{SMOKE_IDS[0]}#2"] == "12"


def test_stored_uncertainty_equals_the_engine_on_the_stored_cases(
    suites: Path,
) -> None:
    run = run_suite(suites / "smoke.jsonl", repeats=3, reducer="majority")
    cases = list(run.case_results.all())
    expected = estimate(
        epochs_of([c.case_id for c in cases], [float(c.passed) for c in cases]),
        parse_reducer("majority"),
    )
    assert run.uncertainty["metrics"]["passRate"] == estimate_to_wire(expected)
    assert run.uncertainty["reducer"] == "majority"
    assert run.config["reducer"] == "majority"
    assert run.uncertainty["scenarios"] == len(SMOKE_IDS)


@pytest.mark.parametrize("bad", [0, 101, "x", 2.5, True, None])
def test_bad_repeats_is_refused_naming_the_field_and_nothing_is_stored(
    suites: Path, bad: Any
) -> None:
    before = stored_counts()
    with pytest.raises(SchemaInvalid) as caught:
        eval_run_create(
            suite_path=suites / "smoke.jsonl",
            profile="balanced",
            mode="thought_only",
            model="scripted",
            repeats=bad,
            schedule=False,
        )
    assert [p.path for p in caught.value.problems] == ["repeats"]
    assert stored_counts() == before


@pytest.mark.parametrize(
    ("reducer", "repeats"), [("median", 3), ("pass_at_5", 3), ("pass^0", 3)]
)
def test_bad_reducer_is_refused_naming_the_field(
    suites: Path, reducer: str, repeats: int
) -> None:
    before = stored_counts()
    with pytest.raises(SchemaInvalid) as caught:
        eval_run_create(
            suite_path=suites / "smoke.jsonl",
            profile="balanced",
            mode="thought_only",
            model="scripted",
            repeats=repeats,
            reducer=reducer,
            schedule=False,
        )
    assert [p.path for p in caught.value.problems] == ["reducer"]
    assert stored_counts() == before


def test_pass_at_k_reduces_the_pass_rate_only(suites: Path) -> None:
    run = run_suite(suites / "smoke.jsonl", repeats=3, reducer="pass_at_2")
    metrics = run.uncertainty["metrics"]
    assert metrics["passRate"]["reducer"] == "pass_at_2"
    assert metrics["action_rate"]["reducer"] == "mean"


def test_each_epochs_artifact_records_its_seed(suites: Path) -> None:
    run = run_suite(suites / "smoke.jsonl", repeats=2, seed=5)
    seeds = {
        c.case_id: c.details["model"]["seed"]
        for c in run.case_results.filter(case_id__startswith=SMOKE_IDS[0])
    }
    assert seeds == {f"{SMOKE_IDS[0]}#0": 5, f"{SMOKE_IDS[0]}#1": 6}
