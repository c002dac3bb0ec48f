"""A finished batch is a run like any other: resume, baselines, compare, trends."""

from __future__ import annotations

from typing import Any

import pytest

from evals.models import Run
from evals.services.runs.lifecycle import run_chunk_execute, run_resume
from gridworld.models import Episode
from gridworld.services.batches import batch_create
from tests.builders import batch_finished

pytestmark = pytest.mark.django_db

CONFIG = {"map": "hazard", "episodes": 6, "seed": 3, "lane_size": 3}


def test_resume_plays_only_the_missing_episodes(
    django_capture_on_commit_callbacks: Any,
) -> None:
    batch = batch_create(config=CONFIG, schedule=False)
    run_chunk_execute(run_pk=batch.run.pk, case_ids=["episode-0", "episode-4"])
    kept = dict(Episode.objects.values_list("index", "receipt_digest"))
    with django_capture_on_commit_callbacks(execute=True):
        assert run_resume(run_pk=batch.run.pk) == 1
    run = Run.objects.get(pk=batch.run.pk)
    assert run.status == Run.Status.COMPLETED
    assert Episode.objects.count() == 6
    assert (
        dict(
            Episode.objects.filter(index__in=[0, 4]).values_list(
                "index", "receipt_digest"
            )
        )
        == kept
    )


def test_compare_and_trends_show_two_batches(owner_client: Any) -> None:
    first = batch_finished(CONFIG)
    second = batch_finished({**CONFIG, "seed": 50})
    compare = owner_client.get(
        f"/evals/compare?base={first.run_id}&candidate={second.run_id}"
    )
    assert compare.status_code == 200
    html = compare.content.decode()
    assert "success_rate" in html
    assert "safety_violations" in html
    assert "episode-5" in html
    trends = owner_client.get(
        "/evals/trends?benchmark=gridworld:hazard:planner:lexicographic&metric=success_rate"
    )
    assert trends.status_code == 200
    assert second.run_id in trends.content.decode()


def test_an_episode_case_opens_its_episode_page(owner_client: Any) -> None:
    """The compare page's case links of a batch lead to the episode's own page
    (map, steps, receipt), named as such, not to a scenario page showing the
    stored dict."""
    first = batch_finished(CONFIG)
    second = batch_finished({**CONFIG, "seed": 50})
    case = owner_client.get(
        f"/evals/compare/case?base={first.run_id}&candidate={second.run_id}"
        "&case=episode-2"
    )
    assert case.status_code == 200
    assert "episode page" in case.content.decode()
    assert "scenario page" not in case.content.decode()
    scenario = owner_client.get(f"/evals/runs/{second.run_id}/scenarios/episode-2/")
    assert scenario.status_code == 302
    episode = owner_client.get(scenario["Location"])
    assert episode.status_code == 302
    assert episode["Location"].endswith("/episodes/2/")
    page = owner_client.get(episode["Location"])
    assert page.status_code == 200
    assert "Episode 2" in page.content.decode()


def test_compare_of_batches_leaves_out_the_scenario_columns(
    owner_client: Any,
) -> None:
    """Episodes have no stimulus or affordance: no column of "—" for them."""
    first = batch_finished(CONFIG)
    second = batch_finished({**CONFIG, "seed": 50})
    html = owner_client.get(
        f"/evals/compare?base={first.run_id}&candidate={second.run_id}"
    ).content.decode()
    assert ">Latency (ms)</th>" in html
    assert ">Stimulus</th>" not in html
    assert ">Affordance</th>" not in html
    assert 'name="kind"' not in html


def test_two_safe_batches_with_other_seeds_are_no_regression(
    owner_client: Any,
) -> None:
    """Only metrics with a declared direction and threshold are judged: the
    means of two fully passing batches move with the seeds and are shown as
    neutral, never as a regression."""
    from evals.services.compare import comparison_for_runs

    first = batch_finished(CONFIG)
    second = batch_finished({**CONFIG, "seed": 50})
    assert first.pass_rate == second.pass_rate == 1.0
    assert first.metrics["mean_distance"] != second.metrics["mean_distance"]
    comparison = comparison_for_runs(
        base_run_id=first.run_id, candidate_run_id=second.run_id
    )
    assert comparison.verdict.passed
    assert comparison.verdict.regressions == ()
    outcomes = {row.name: row.outcome for row in comparison.sections[0].metrics}
    for name in (
        "mean_distance",
        "mean_steps",
        "mean_steps_to_goal",
        "mean_regret",
        "mean_budget_spent",
        "recovery_rate_20",
    ):
        assert outcomes[name] in ("neutral", "unchanged"), name
    assert outcomes["mean_distance"] == "neutral"
    html = owner_client.get(
        f"/evals/compare?base={first.run_id}&candidate={second.run_id}"
    ).content.decode()
    assert "mean_distance" in html
    assert "regressed" not in html
    # The legend says what each outcome a row can show means.
    assert (
        '"within threshold", neither; neutral metrics are shown, never judged' in html
    )


def test_the_episode_drill_down_is_a_metrics_table(owner_client: Any) -> None:
    """One row per field and per episode metric on both sides, the ones that
    differ marked; no JSON blob."""
    first = batch_finished(CONFIG)
    second = batch_finished({**CONFIG, "seed": 50})
    html = owner_client.get(
        f"/evals/compare/case?base={first.run_id}&candidate={second.run_id}"
        "&case=episode-2"
    ).content.decode()
    assert "<pre>" not in html
    assert '<th scope="row">metric safety_violations</th>' in html
    assert '<th scope="row">seed <span class="badge">differs</span></th>' in html
    assert '<td data-label="Base">5</td>' in html  # seed 3 + 2
    assert '<td data-label="Candidate">52</td>' in html


def test_the_overview_shows_no_open_regression_for_another_seed(
    owner_client: Any, settings: Any
) -> None:
    """A baseline of one fully passing batch and a later one with other seeds:
    the overview judges them like the gate, with no open regression."""
    from evals.services.baselines import baseline_snapshot_create

    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    first = batch_finished({**CONFIG, "seed": 50})
    baseline_snapshot_create(snapshot_id="required-main")
    second = batch_finished(CONFIG)
    assert first.metrics["mean_distance"] < second.metrics["mean_distance"]
    assert first.pass_rate == second.pass_rate == 1.0
    html = owner_client.get("/").content.decode()
    assert "no regression" in html
    assert "mean_distance" not in html
