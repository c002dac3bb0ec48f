"""The figures on the batch page and in the batch detail API, the compare
page of two batches (probability of improvement paired by seed), and its
refusals in words for batches that do not pair."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from evals.services.runs.lifecycle import run_execute
from gridworld.core.batch_figures import EPISODE_METRICS
from gridworld.core.stats import bootstrap_interval
from gridworld.models import EpisodeBatch
from gridworld.services.batches import batch_create

pytestmark = pytest.mark.django_db


def played(**config: Any) -> EpisodeBatch:
    batch = batch_create(
        config={"map": "hazard", "episodes": 6, "seed": 0, **config}, schedule=False
    )
    run_execute(run=batch.run)
    return batch


@pytest.fixture
def planner() -> EpisodeBatch:
    return played(proposer="planner")


@pytest.fixture
def greedy() -> EpisodeBatch:
    return played(proposer="greedy", governor="none", seed=2)


def figure(html: str, element_id: str) -> dict[str, Any]:
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S
    )
    assert match, element_id
    return json.loads(match.group(1))


def test_batch_page_shows_each_metric_with_n_strata_and_links_to_receipts(
    owner_client: Any, planner: EpisodeBatch
) -> None:
    html = owner_client.get(planner.get_absolute_url()).content.decode()

    assert "n = 6 episodes" in html
    assert "strata: 1 map (hazard)" in html
    for metric in EPISODE_METRICS:
        assert f'data-metric="{metric.key}"' in html
    assert f'href="/api/gridworld/batches/{planner.pk}/episodes"' in html
    assert 'href="#episodes"' in html and 'id="episodes"' in html


def test_batch_page_iqm_is_the_stats_bootstrap_of_the_stored_episodes(
    owner_client: Any, planner: EpisodeBatch
) -> None:
    steps = [e.metrics["steps"] for e in planner.episode_rows.order_by("index")]
    expected = bootstrap_interval(steps, ["hazard"] * 6, statistic="iqm", seed=0)

    html = owner_client.get(planner.get_absolute_url()).content.decode()
    row = re.search(r'<tr data-metric="steps">(.*?)</tr>', html, re.S)

    assert row is not None
    cells = re.findall(r'<td class="num">(.*?)</td>', row.group(1))
    assert cells[0] == f"{expected.point:.3f}"
    assert cells[1] == f"{expected.low:.3f} – {expected.high:.3f}"


def test_profile_chart_has_one_line_per_batch_and_a_menu_per_metric(
    owner_client: Any, planner: EpisodeBatch
) -> None:
    html = owner_client.get(planner.get_absolute_url()).content.decode()
    profile = figure(html, "gw-profile-figure")

    assert len(profile["data"]) == len(EPISODE_METRICS)
    assert [t["visible"] for t in profile["data"]].count(True) == 1
    menu = profile["layout"]["updatemenus"][0]["buttons"]
    assert [b["label"] for b in menu][:3] == ["passed", "success", "steps"]


def test_api_batch_detail_has_figures_under_a_new_key(
    owner_client: Any, planner: EpisodeBatch
) -> None:
    body = owner_client.get(f"/api/gridworld/batches/{planner.pk}").json()
    listed = owner_client.get("/api/gridworld/batches").json()["results"][0]

    figures = body.pop("figures")
    assert body == listed
    assert figures["episodes"] == 6
    assert figures["strata"] == ["hazard"]
    assert figures["resamples"] >= 2000
    assert figures["confidence"] == 0.95
    assert figures["episodesUrl"].endswith(
        f"/api/gridworld/batches/{planner.pk}/episodes"
    )
    assert [m["metric"] for m in figures["metrics"]] == [m.key for m in EPISODE_METRICS]


def test_api_figures_are_null_while_the_batch_runs(owner_client: Any) -> None:
    queued = batch_create(config={"map": "simple", "episodes": 2}, schedule=False)

    body = owner_client.get(f"/api/gridworld/batches/{queued.pk}").json()
    html = owner_client.get(queued.get_absolute_url()).content.decode()

    assert body["status"] == "queued"
    assert body["figures"] is None
    assert "The figures appear when the batch finishes." in html


def test_batch_page_lists_pairable_batches_and_its_form_goes_to_compare(
    owner_client: Any, planner: EpisodeBatch, greedy: EpisodeBatch
) -> None:
    other_map = played(map="maze")
    other_seeds = played(seed=100)
    html = owner_client.get(planner.get_absolute_url()).content.decode()

    assert f'<option value="{greedy.pk}">' in html
    assert f'<option value="{other_map.pk}">' not in html
    assert f'<option value="{other_seeds.pk}">' not in html
    response = owner_client.get(f"{planner.get_absolute_url()}?compare={greedy.pk}")
    assert response.status_code == 302
    assert (
        response["Location"] == f"/gridworld/batches/{planner.pk}/compare/{greedy.pk}/"
    )


def test_compare_page_shows_p_of_improvement_on_shared_seeds_with_receipts(
    owner_client: Any, planner: EpisodeBatch, greedy: EpisodeBatch
) -> None:
    response = owner_client.get(f"/gridworld/batches/{planner.pk}/compare/{greedy.pk}/")
    html = response.content.decode()

    assert response.status_code == 200
    assert "n = 4 paired seeds" in html
    for metric in EPISODE_METRICS:
        assert f'<tr data-metric="{metric.key}">' in html
    profile = figure(html, "gw-profile-figure")
    assert {t["name"] for t in profile["data"]} == {
        f"#{planner.pk} planner/lexicographic",
        f"#{greedy.pk} greedy/none",
    }
    assert f'href="{planner.get_absolute_url()}#episodes"' in html
    assert f'href="{greedy.get_absolute_url()}#episodes"' in html


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"map": "maze"}, "only on the same map"),
        ({"drift_period": 0}, "goal drift period"),
        ({"max_steps": 40}, "step limit"),
        ({"seed": 500}, "no seed in common"),
    ],
)
def test_compare_page_refuses_batches_that_do_not_pair_in_words(
    owner_client: Any, planner: EpisodeBatch, config: dict[str, Any], words: str
) -> None:
    other = played(**config)

    response = owner_client.get(f"/gridworld/batches/{planner.pk}/compare/{other.pk}/")
    html = response.content.decode()

    assert response.status_code == 200
    assert 'id="gw-compare-problem"' in html
    assert words in html
    assert "gw-improvement-table" not in html


def test_compare_page_of_an_unknown_batch_is_a_404(
    owner_client: Any, planner: EpisodeBatch
) -> None:
    response = owner_client.get(f"/gridworld/batches/{planner.pk}/compare/99999/")

    assert response.status_code == 404


def test_compare_page_needs_a_login(client: Any, planner: EpisodeBatch) -> None:
    response = client.get(f"/gridworld/batches/{planner.pk}/compare/{planner.pk}/")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_figures_of_a_batch_past_the_limit_say_they_use_the_first_episodes(
    owner_client: Any, planner: EpisodeBatch, monkeypatch: Any
) -> None:
    monkeypatch.setattr("gridworld.selectors.FIGURE_EPISODES", 4)

    html = owner_client.get(planner.get_absolute_url()).content.decode()
    body = owner_client.get(f"/api/gridworld/batches/{planner.pk}").json()

    assert "n = 4 episodes (the first 4 stored: figures use at most 4)" in html
    assert body["figures"]["episodes"] == 4
