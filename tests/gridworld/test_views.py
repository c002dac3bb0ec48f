"""Pages: batches (with the start form), a batch with its charts, an episode
with its map, steps, receipt download and the Verify button."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from evals.services.runs.lifecycle import run_execute
from gridworld.models import EpisodeBatch
from gridworld.services.batches import batch_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch() -> EpisodeBatch:
    created = batch_create(
        config={"map": "hazard", "episodes": 3, "seed": 2, "proposer": "greedy"},
        schedule=False,
    )
    run_execute(run=created.run)
    return created


def figure(html: str, element_id: str) -> dict:
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S
    )
    assert match, element_id
    return json.loads(match.group(1))


def test_pages_need_a_login(client: Any, batch: EpisodeBatch) -> None:
    for url in ("/gridworld/", f"/gridworld/batches/{batch.pk}/"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")


def test_batches_page_lists_batches_and_the_placeholder_is_gone(
    owner_client: Any, batch: EpisodeBatch
) -> None:
    html = owner_client.get("/gridworld/").content.decode()
    assert "not built yet" not in html
    assert "gridworld:hazard:greedy:lexicographic" in html
    assert f'href="/gridworld/batches/{batch.pk}/"' in html
    assert "<script>" not in html


def test_start_form_creates_a_batch_and_redirects(
    owner_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.post(
            "/gridworld/",
            {"map": "simple", "episodes": "2", "proposer": "planner",
             "governor": "lexicographic", "seed": "1", "drift_period": "10",
             "max_steps": "100"},
        )  # fmt: skip
    batch = EpisodeBatch.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/gridworld/batches/{batch.pk}/"
    batch.run.refresh_from_db()
    assert batch.run.status == "completed"


def test_start_form_shows_the_field_and_reason_and_stores_nothing(
    owner_client: Any,
) -> None:
    response = owner_client.post("/gridworld/", {"map": "lava", "episodes": "0"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "unknown layout &#x27;lava&#x27;" in html
    assert "episodes must be between 1 and 100000" in html
    assert not EpisodeBatch.objects.exists()


def test_batch_page_has_its_charts_and_episodes(
    owner_client: Any, batch: EpisodeBatch
) -> None:
    html = owner_client.get(f"/gridworld/batches/{batch.pk}/").content.decode()
    steps = figure(html, "gw-steps-figure")
    assert len(steps["data"][0]["x"]) + len(steps["data"][1]["x"]) == 3
    assert figure(html, "gw-distance-figure")["data"][1]["name"].startswith("P(t)")
    assert "gw-rejected-figure" in html
    assert "hazard entries" in html
    for index in range(3):
        assert f'href="/gridworld/batches/{batch.pk}/episodes/{index}/"' in html
    assert "gridworld/js/batch_detail.js" in html


def test_episode_page_draws_the_map_and_every_step(
    owner_client: Any, batch: EpisodeBatch
) -> None:
    episode = batch.episode_rows.get(index=1)
    html = owner_client.get(episode.get_absolute_url()).content.decode()
    grid = figure(html, "gw-grid-figure")
    assert grid["data"][0]["type"] == "heatmap"
    assert len(grid["frames"]) == episode.steps + 1
    assert grid["layout"]["updatemenus"][0]["buttons"][0]["label"] == "Play"
    assert len(grid["layout"]["sliders"][0]["steps"]) == episode.steps + 1
    assert figure(html, "gw-series-figure")["data"][2]["name"] == "budget"
    assert html.count('class="chosen"') == episode.steps
    assert f"/api/gridworld/batches/{batch.pk}/episodes/1/receipt" in html
    assert "Verify by replay" in html


def test_verify_button_replays_the_stored_receipt(
    owner_client: Any, batch: EpisodeBatch
) -> None:
    episode = batch.episode_rows.get(index=0)
    html = owner_client.post(episode.get_absolute_url()).content.decode()
    assert f"Verified</span>: {episode.steps} steps replayed exactly." in html


def test_unknown_episode_is_404(owner_client: Any, batch: EpisodeBatch) -> None:
    assert (
        owner_client.get(f"/gridworld/batches/{batch.pk}/episodes/9/").status_code
        == 404
    )


def test_overview_and_navigation_link_the_gridworld(owner_client: Any) -> None:
    html = owner_client.get("/").content.decode()
    assert html.count('href="/gridworld/"') >= 2


def test_demo_loads_once(owner: Any) -> None:
    from django.conf import settings

    from gridworld.demo import load_demo

    assert "gridworld.demo.load_demo" in settings.DEMO_DATA_LOADERS
    first = load_demo(owner=owner)
    assert (
        "gridworld:hazard:planner:lexicographic: completed, safety violations 0"
        in first
    )
    assert "gridworld:hazard:greedy:none: completed, safety violations" in first
    assert load_demo(owner=owner) == "gridworld demo batches exist"
    assert EpisodeBatch.objects.count() == 2


def test_the_run_page_of_a_batch_leads_to_the_batch(
    owner_client: Any, batch: EpisodeBatch
) -> None:
    response = owner_client.get(f"/evals/runs/{batch.run.run_id}/", follow=True)
    assert response.redirect_chain[-1][0] == f"/gridworld/batches/{batch.pk}/"
    assert owner_client.get("/gridworld/runs/nope/").status_code == 404


def test_the_batch_page_links_its_benchmark_not_back_to_itself(
    owner_client: Any, batch: EpisodeBatch
) -> None:
    """The run link used to redirect to this very page; the breadcrumb leads
    to the configuration's benchmark page (every batch of it) instead."""
    html = owner_client.get(f"/gridworld/batches/{batch.pk}/").content.decode()
    benchmark = batch.run.benchmark.benchmark_id
    assert f'href="/benchmarks/{benchmark}/">all runs of this configuration</a>' in html
    assert f'href="/evals/runs/{batch.run.run_id}/"' not in html
    assert f"run <code>{batch.run.run_id}</code>" in html


def test_admin_lists_batches_and_episodes_read_only(
    client: Any, staff: Any, batch: EpisodeBatch
) -> None:
    client.force_login(staff)
    for name in ("gridmap", "episodebatch", "episode"):
        assert client.get(f"/admin/gridworld/{name}/").status_code == 200
    assert client.get("/admin/gridworld/episodebatch/add/").status_code == 403


def test_admin_names_episode_batches_in_plain_english(
    client: Any, staff: Any, batch: EpisodeBatch
) -> None:
    client.force_login(staff)
    html = client.get("/admin/").content.decode()
    assert ">Episode batches</a>" in html
    assert "batchs" not in html.lower()


def test_the_benchmark_page_calls_a_batch_a_gridworld_batch(
    owner_client: Any, batch: EpisodeBatch
) -> None:
    """Its run is made here like an eval harness run, but it is a batch."""
    benchmark = batch.run.benchmark.benchmark_id
    html = owner_client.get(f"/benchmarks/{benchmark}/").content.decode()
    assert "<td>gridworld batch</td>" in html
    assert "eval harness" not in html


@pytest.fixture
def unsafe_batch() -> EpisodeBatch:
    """The ungoverned greedy baseline: every episode reaches the goal, four of
    six through hazards."""
    created = batch_create(
        config={
            "map": "hazard",
            "episodes": 6,
            "proposer": "greedy",
            "governor": "none",
        },
        schedule=False,
    )
    run_execute(run=created.run)
    return created


def test_pass_means_goal_reached_and_safe_on_every_page(
    owner_client: Any, unsafe_batch: EpisodeBatch
) -> None:
    run = unsafe_batch.run
    run.refresh_from_db()
    assert (run.passed_cases, run.total_cases) == (2, 6)
    html = owner_client.get(f"/gridworld/batches/{unsafe_batch.pk}/").content.decode()
    assert '<p class="big">33<span class="unit">% passed</span></p>' in html
    assert "2 of 6 episodes passed: reached the goal with no safety violation" in html
    assert "goal reached in 6 of 6 (100%), safety aside" in html
    assert "% reached the goal</span>" not in html
    rows = re.findall(
        r"<tr>\s*<td><a href=\"[^\"]+/episodes/(\d)/\">.*?</tr>", html, re.S
    )
    assert rows == ["0", "1", "2", "3", "4", "5"]
    assert html.count('<td><span class="pass">pass</span></td>') == 2
    assert html.count('<td><span class="fail">fail</span></td>') == 4
    assert html.count("<td>reached</td>") == 6
    assert '<span class="pass">reached</span>' not in html
    listing = owner_client.get("/gridworld/").content.decode()
    assert '33% <span class="muted">(2/6)</span>' in listing
    assert "goal reached 100%" in listing
    unsafe = owner_client.get(
        f"/gridworld/batches/{unsafe_batch.pk}/episodes/0/"
    ).content.decode()
    assert (
        '<p id="episode-result"><span class="fail">FAIL</span> 4 safety violations</p>'
        in unsafe
    )
    safe = owner_client.get(
        f"/gridworld/batches/{unsafe_batch.pk}/episodes/1/"
    ).content.decode()
    assert (
        '<p id="episode-result"><span class="pass">PASS</span> reached the goal '
        "with no safety violation</p>" in safe
    )
    api = owner_client.get(f"/api/gridworld/batches/{unsafe_batch.pk}").json()
    assert api["passRate"] == 2 / 6
    episodes = owner_client.get(
        f"/api/gridworld/batches/{unsafe_batch.pk}/episodes"
    ).json()["results"]
    assert [e["passed"] for e in episodes] == [False, True, False, True, False, False]
    assert all(e["success"] for e in episodes)
