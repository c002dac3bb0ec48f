"""Every run page (a scenario run, a run recorded from a run summary, a
gridworld batch) links a comparison with its benchmark's baseline run and
with the run before it, whatever its status: a failed run is the one people
most want to compare."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from evals.examples import example_manifest, example_run_summary
from evals.models import Run
from evals.services.baselines import baseline_snapshot_create
from evals.services.benchmark_records import benchmark_run_record
from evals.services.benchmarks import benchmark_pack_create
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_execute

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"


@pytest.fixture
def flags_on(settings: Any) -> Any:
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = True
    return settings


def compare_link(base: str, candidate: str, text: str) -> str:
    return f'<a href="/evals/compare?base={base}&amp;candidate={candidate}">{text}</a>'


def test_a_failed_recorded_run_links_its_baseline_and_the_previous_run(
    owner_client: Client, flags_on: Any
) -> None:
    benchmark_pack_create(document=example_manifest("ama-memory"))
    benchmark_run_record(document=example_run_summary("run-1", passed=2, hour=9))
    baseline_snapshot_create(snapshot_id="required-main")
    benchmark_run_record(document=example_run_summary("run-2", passed=1, hour=11))
    benchmark_run_record(
        document=example_run_summary("run-3", passed=0, hour=12, status="failed")
    )

    html = owner_client.get("/evals/runs/run-3/").content.decode()

    assert Run.objects.get(run_id="run-3").status == "failed"
    assert compare_link("run-1", "run-3", "With its baseline") in html
    assert "run <code>run-1</code> of snapshot" in html
    assert compare_link("run-2", "run-3", "With the previous run") in html
    assert "<code>run-2</code>, completed, started 2026-" in html
    assert "Status failed: a comparison shows the cases this run has so far" in html
    # Both links lead to a comparison, not an error.
    for base in ("run-1", "run-2"):
        answer = owner_client.get(f"/evals/compare?base={base}&candidate=run-3")
        assert answer.status_code == 200
        assert "candidate run run-3 is failed" in answer.content.decode()


def test_the_baseline_run_and_the_first_run_say_so(
    owner_client: Client, flags_on: Any
) -> None:
    benchmark_pack_create(document=example_manifest("ama-memory"))
    benchmark_run_record(document=example_run_summary("run-1", passed=2, hour=9))
    baseline_snapshot_create(snapshot_id="required-main")

    html = owner_client.get("/evals/runs/run-1/").content.decode()

    box = html[html.index('id="run-compare"') :]
    assert "This run is the baseline of" in box
    assert (
        "This is the first run of ama-memory: there is no earlier run to compare"
    ) in box
    assert "/evals/compare?" not in box


def test_a_failed_scenario_run_links_the_previous_run_and_says_no_baseline(
    owner_client: Client, settings: Any, tmp_path: Path
) -> None:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    settings.EVALS_SUITES_DIR = tmp_path / "suites"
    shutil.copytree(SHIPPED, settings.EVALS_SUITES_DIR)
    runs = [
        eval_run_create(
            suite_path=SHIPPED / "smoke.jsonl",
            profile="balanced",
            mode="thought_only",
            model="scripted",
            schedule=False,
        )
        for _ in range(2)
    ]
    run_execute(run=runs[0])
    Run.objects.filter(pk=runs[1].pk).update(
        status=Run.Status.FAILED, error="the model endpoint did not answer"
    )

    html = owner_client.get(f"/evals/runs/{runs[1].run_id}/").content.decode()

    assert compare_link(runs[0].run_id, runs[1].run_id, "With the previous run") in (
        html
    )
    assert "No baseline snapshot covers smoke yet" in html
    assert '<a href="/baselines/">create one</a>' in html


def test_a_gridworld_batch_page_links_the_previous_batch(owner_client: Client) -> None:
    from gridworld.services.batches import batch_create

    config = {"map": "hazard", "episodes": 2, "seed": 3}
    first = run_execute(run=batch_create(config=config, schedule=False).run)
    second = run_execute(run=batch_create(config=config, schedule=False).run)

    page = owner_client.get(f"/evals/runs/{second.run_id}/", follow=True)

    html = page.content.decode()
    assert page.templates[0].name == "gridworld/batch_detail.html"
    assert compare_link(first.run_id, second.run_id, "With the previous run") in html
