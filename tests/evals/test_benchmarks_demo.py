"""Demo data of benchmarks and the seed-002 feature flags' defaults."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from evals.demo import load_demo as load_harness_demo
from evals.demo_benchmarks import load_demo
from evals.models import BaselineSnapshot, Benchmark, InvalidUpload, Run, ShadowRecord
from evals.services.benchmark_reports import baseline_delta_report
from evals.services.standings import baseline_standings

REPO = Path(__file__).resolve().parents[2]
FLAGS = (
    "EVAL_HARNESS_ENABLED",
    "EVAL_SHADOW_MODE_ENABLED",
    "BENCHMARK_BASELINE_SNAPSHOTS_ENABLED",
    "BENCHMARK_DELTA_REPORTER_ENABLED",
    "MEMORY_RED_TEAM_BENCH_ENABLED",
)


def test_flags_default_off_and_store_dir_under_var(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in FLAGS}
    env.update(DJANGO_DEBUG="true", EVALSITE_VAR_DIR=str(tmp_path))
    env.pop("EVAL_STORE_DIR", None)
    code = (
        "import json; from evalsite import settings as s; print(json.dumps("
        f"[getattr(s, n) for n in {FLAGS!r}] + [str(s.EVAL_STORE_DIR)]))"
    )

    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout

    assert json.loads(out) == [False] * 5 + [str(tmp_path / "eval-store")]


def test_demo_make_target_turns_the_flags_on() -> None:
    makefile = (REPO / "Makefile").read_text()
    demo_line = next(line for line in makefile.splitlines() if "manage.py demo" in line)

    assert all(f"{flag}=true" in demo_line for flag in FLAGS)


def test_loader_is_registered(settings: Any) -> None:
    assert "evals.demo_benchmarks.load_demo" in settings.DEMO_DATA_LOADERS


@pytest.mark.django_db
def test_demo_loads_packs_runs_a_regression_shadows_and_an_upload(
    staff: Any, settings: Any
) -> None:
    for flag in FLAGS:
        setattr(settings, flag, True)
    # The demo's user is staff (make demo's superuser): it stores a baseline.
    owner = staff

    summary = load_demo(owner=owner)
    again = load_demo(owner=owner)

    upload = InvalidUpload.objects.get()
    assert summary == (
        "benchmark packs: created, created, created; runs recorded: 6 of 6; baseline "
        f"required-main created; 5 shadow records; invalid upload #{upload.pk} "
        "waiting for review"
    )
    assert again == (
        "benchmark packs: unchanged, unchanged, unchanged; demo runs: 6 already "
        "recorded; "
        "baseline required-main unchanged; 0 shadow records"
    )
    assert Benchmark.objects.count() == 3
    assert Run.objects.count() == 6
    assert ShadowRecord.objects.count() == 5
    assert upload.status == "pending"
    verdict = baseline_delta_report(snapshot_id="required-main")
    assert verdict.passed is False
    assert verdict.regressions == (
        "ama-memory pass rate regressed (0.8333 -> 0.6667)",
        "ama-memory actionOutcomeScore 0.81 -> 0.74",
        "ama-memory trustViolationRate 0.02 -> 0.05",
        "calendar-actions pass rate regressed (0.95 -> 0.7)",
        "calendar-actions actionOutcomeScore 0.88 -> 0.71",
    )
    assert verdict.improvements == (
        "poisoning-corroboration-pack pass rate improved (0.6667 -> 1)",
        "poisoning-corroboration-pack trustViolationRate 0.33 -> 0",
    )


@pytest.mark.django_db
def test_demo_with_flags_off_says_what_it_skipped(owner: Any) -> None:
    summary = load_demo(owner=owner)

    assert summary.startswith(
        "benchmark packs: created, created; runs recorded: 4 of 4; "
    )
    assert "red-team pack skipped (MEMORY_RED_TEAM_BENCH_ENABLED off)" in summary
    assert "baseline skipped (BENCHMARK_BASELINE_SNAPSHOTS_ENABLED off)" in summary
    assert "shadow records skipped (shadow mode off)" in summary
    assert BaselineSnapshot.objects.count() == 0
    assert ShadowRecord.objects.count() == 0


@pytest.mark.django_db
def test_demo_command_runs_every_loader(settings: Any, tmp_path: Path) -> None:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    for flag in FLAGS:
        setattr(settings, flag, True)
    out = io.StringIO()

    call_command("demo", "--no-serve", stdout=out)

    assert (
        "demo data: evals.demo_benchmarks.load_demo: benchmark packs: created, "
        "created, created; runs recorded: 6 of 6;"
    ) in out.getvalue()
    assert BaselineSnapshot.objects.get().snapshot_id == "required-main"


@pytest.mark.django_db
def test_demo_baseline_covers_the_suites_so_the_idle_regression_is_open(
    staff: Any, settings: Any, tmp_path: Path
) -> None:
    owner = staff
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    for flag in FLAGS:
        setattr(settings, flag, True)
    load_harness_demo(owner=owner)
    load_demo(owner=owner)
    again = load_demo(owner=owner)

    snapshot = BaselineSnapshot.objects.get(snapshot_id="required-main")
    entries = {e["benchmarkId"]: e["runId"] for e in snapshot.document["benchmarks"]}
    balanced = {
        run.config["demoKey"]: run.run_id
        for run in Run.objects.filter(benchmark__kind="suite")
    }
    assert entries["smoke"] == balanced["smoke-balanced"]
    assert entries["idle-v1"] == balanced["idle-v1-balanced"]
    assert "baseline required-main unchanged" in again
    standings = baseline_standings()
    assert standings["idle-v1"].candidate_run_id == balanced["idle-v1-regressed"]
    assert standings["idle-v1"].regressed
    assert not standings["smoke"].regressed


@pytest.mark.django_db
def test_demo_shows_an_inconclusive_and_a_significant_regression(
    staff: Any, settings: Any
) -> None:
    from evals.services.stat_verdicts import baseline_verdicts

    for flag in FLAGS:
        setattr(settings, flag, True)
    load_demo(owner=staff)

    words = {found.benchmark_id: found.text.word for found in baseline_verdicts()}

    # Both regress in the plain gate; only the 40-scenario pack's drop is
    # beyond what its noise could explain.
    assert words["ama-memory"] == "inconclusive"
    assert words["calendar-actions"] == "regression"
