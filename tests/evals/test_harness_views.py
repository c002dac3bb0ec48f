"""Pages of the harness: login, rendering, filters, the form, artifacts."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from evals import charts
from evals.models import Run
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_chunk_execute, run_execute

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"


@pytest.fixture(autouse=True)
def isolated(settings: Any, tmp_path: Path) -> Path:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    suites = tmp_path / "suites"
    shutil.copytree(SHIPPED, suites)
    settings.EVALS_SUITES_DIR = suites
    return suites


def make_run(
    suite: str = "smoke", *, execute: bool = True, script: str | None = None
) -> Run:
    run = eval_run_create(
        suite_path=SHIPPED / f"{suite}.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        script_path=SHIPPED / script if script else None,
        schedule=False,
    )
    return run_execute(run=run) if execute else run


@pytest.fixture
def finished() -> Run:
    return make_run()


def page_urls(run: Run) -> list[str]:
    return [
        "/evals/",
        "/evals/runs/",
        "/evals/runs/new",
        f"/evals/runs/{run.run_id}/",
        "/evals/suites/smoke/",
        f"/evals/runs/{run.run_id}/scenarios/smoke:zombie-close/",
        f"/evals/runs/{run.run_id}/artifacts/summary.json",
    ]


def test_every_page_needs_a_login(client: Any, finished: Run) -> None:
    for url in page_urls(finished):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/accounts/login/?next="), url


def test_every_page_renders_for_a_logged_in_user_and_links_the_others(
    member_client: Any, finished: Run
) -> None:
    for url in page_urls(finished)[:-1]:
        response = member_client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert 'href="/evals/"' in html, url
        assert 'href="/evals/runs/"' in html, url
        assert 'href="/evals/runs/new"' in html, url


def test_home_lists_suites_with_line_count_sha_and_versions(
    owner_client: Any, finished: Run, isolated: Path
) -> None:
    html = owner_client.get("/evals/").content.decode()

    assert '<a href="/evals/suites/smoke/">smoke</a>' in html
    assert (
        f'title="{finished.suite_sha256}">{finished.suite_sha256[:12]}</code>' in html
    )
    assert "<td>20</td>" in html
    assert f'href="/evals/runs/{finished.run_id}/"' in html


def test_run_page_shows_metrics_verdict_and_every_scenario(
    owner_client: Any, finished: Run
) -> None:
    html = owner_client.get(f"/evals/runs/{finished.run_id}/").content.decode()

    assert '<span class="pass">PASS</span>' in html
    assert "<code>action_rate</code></td><td>0.4</td>" in html
    for case_id in ("smoke:stable-plains", "smoke:zombie-close"):
        assert f'href="/evals/runs/{finished.run_id}/scenarios/{case_id}/"' in html
        assert (
            f'href="/evals/runs/{finished.run_id}/artifacts/scenarios/{case_id}.json"'
            in html
        )
    assert "<pre>[Bot State]" in html
    assert "build cobblestone 4" in html
    assert "grounding_fail" not in html
    assert 'href="/evals/runs/' + finished.run_id + '/artifacts/summary.json"' in html
    # Finished: no polling script.
    assert "run_detail.js" not in html


def test_running_run_page_polls_its_json_endpoint(owner_client: Any) -> None:
    run = make_run(execute=False)

    html = owner_client.get(f"/evals/runs/{run.run_id}/").content.decode()

    assert f'data-status-url="/api/evals/runs/{run.run_id}"' in html
    assert (
        '<progress max="5" value="0" aria-labelledby="run-progress-text"></progress>'
    ) in html
    assert (
        '<span id="run-progress-text" class="progress-text">'
        "0 of 5 scenarios done</span>"
    ) in html
    assert 'src="/static/evals/js/run_detail.js"' in html
    assert "<script>" not in html
    assert "Scenarios appear here when the run finishes." in html


def test_part_way_run_page_shows_true_counts(owner_client: Any) -> None:
    run = make_run(execute=False)
    first_two = ["smoke:stable-plains", "smoke:zombie-close"]
    assert run_chunk_execute(run_pk=run.pk, case_ids=first_two) == 2

    html = owner_client.get(f"/evals/runs/{run.run_id}/").content.decode()

    assert '<p id="run-status" aria-live="polite">running</p>' in html
    assert '<progress max="5" value="2"' in html
    assert "2 of 5 scenarios done</span>" in html
    # The passed count is the finished run's: not shown as "0 of 5" while
    # scenarios are still running.
    assert "scenarios passed" not in html
    assert "not yet" in html
    # The scenarios recorded when the page loaded, said to be so.
    for case_id in first_two:
        assert f'href="/evals/runs/{run.run_id}/scenarios/{case_id}/"' in html
    assert "Those finished when the page loaded" in html

    finished = run_execute(run=Run.objects.get(pk=run.pk))
    html = owner_client.get(f"/evals/runs/{run.run_id}/").content.decode()
    assert f"{finished.passed_cases} of 5 scenarios passed" in html
    assert "<progress" not in html
    assert "Those finished when the page loaded" not in html


def test_scenario_page_shows_frame_output_goal_and_reasons(
    owner_client: Any, finished: Run
) -> None:
    html = owner_client.get(
        f"/evals/runs/{finished.run_id}/scenarios/smoke:hunger-raw-mutton/"
    ).content.decode()

    artifact = finished.case_results.get(case_id="smoke:hunger-raw-mutton").details
    assert "<pre>[Bot State]" in html
    assert "smelt raw_mutton 2" in html
    assert "eligible" in html
    assert "grounded" in html
    assert artifact["scenario"]["sha256"][:12] in html


def test_scenario_page_tells_model_latency_from_its_own_timing(
    owner_client: Any, finished: Run
) -> None:
    html = owner_client.get(
        f"/evals/runs/{finished.run_id}/scenarios/smoke:hunger-raw-mutton/"
    ).content.decode()

    artifact = finished.case_results.get(case_id="smoke:hunger-raw-mutton").details
    started = datetime.fromisoformat(artifact["startedAt"])
    elapsed = (datetime.fromisoformat(artifact["completedAt"]) - started) * 1000
    assert (
        f"Model latency <strong>{artifact['latencyMs']} ms</strong><br>"
        '<span class="muted">as the model reported it (a scripted model replays '
        "the recorded figure)</span>"
    ) in html
    assert (
        f"Evaluated here in {round(elapsed.total_seconds(), 1)} ms<br>"
        f'<span class="muted">from <time datetime="{artifact["startedAt"]}">'
        f"{started.astimezone(UTC):%Y-%m-%d %H:%M:%S}</time></span>"
    ) in html


def test_unknown_run_scenario_or_suite_is_404(owner_client: Any, finished: Run) -> None:
    for url in (
        "/evals/runs/20260101000000-abcdef/",
        f"/evals/runs/{finished.run_id}/scenarios/nope/",
        "/evals/suites/nope/",
    ):
        assert owner_client.get(url).status_code == 404, url


def test_artifact_view_serves_the_bundle_json(owner_client: Any, finished: Run) -> None:
    response = owner_client.get(
        f"/evals/runs/{finished.run_id}/artifacts/scenarios/smoke:zombie-close.json"
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = json.loads(b"".join(response.streaming_content))
    assert body == finished.case_results.get(case_id="smoke:zombie-close").details


@pytest.mark.parametrize(
    "name",
    [
        "../../../../../../etc/passwd",
        "..%2F..%2F..%2Fsecrets.json",
        "scenarios/../../other.json",
        "scenarios",
        "nope.json",
    ],
)
def test_artifact_view_refuses_anything_outside_the_bundle(
    owner_client: Any, finished: Run, name: str
) -> None:
    response = owner_client.get(f"/evals/runs/{finished.run_id}/artifacts/{name}")

    assert response.status_code == 404


def test_artifact_view_refuses_a_run_dir_outside_the_artifacts_root(
    owner_client: Any, finished: Run, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "summary.json").write_text("{}")
    Run.objects.filter(pk=finished.pk).update(artifacts_dir=str(outside))

    response = owner_client.get(f"/evals/runs/{finished.run_id}/artifacts/summary.json")

    assert response.status_code == 404


def test_run_list_filters_and_paginates(owner_client: Any) -> None:
    make_run()
    failing = make_run("idle-v1", script="idle-v1-regressed.script.jsonl")

    html = owner_client.get("/evals/runs/?verdict=fail").content.decode()
    assert f'href="/evals/runs/{failing.run_id}/"' in html
    assert html.count('<span class="pass">PASS</span>') == 0
    html = owner_client.get(
        "/evals/runs/?suite=smoke&status=completed"
    ).content.decode()
    assert f'href="/evals/runs/{failing.run_id}/"' not in html
    assert html.count('<span class="pass">PASS</span>') == 1


def run_links(html: str) -> list[str]:
    return re.findall(r'<td><a href="/evals/runs/([^/"]+)/"><code>', html)


def test_run_list_pages_by_keyset_past_25_runs(owner_client: Any) -> None:
    first = make_run(execute=False)
    for _ in range(25):
        make_run(execute=False)
    Run.objects.filter(pk=first.pk).update(started_at="2000-01-01T00:00:00Z")

    page_one = owner_client.get("/evals/runs/?suite=smoke").content.decode()
    older = re.search(
        r'href="\?(suite=smoke&amp;after=[^"]+)" rel="next">Older', page_one
    )
    assert older is not None
    assert ">Newer<" not in page_one
    page_two = owner_client.get(f"/evals/runs/?{unescape(older[1])}").content.decode()
    newer = re.search(
        r'href="\?(suite=smoke&amp;before=[^"]+)" rel="prev">Newer', page_two
    )
    assert newer is not None
    back = owner_client.get(f"/evals/runs/?{unescape(newer[1])}").content.decode()

    assert len(run_links(page_one)) == 25
    assert run_links(page_two) == [first.run_id]
    assert first.run_id not in run_links(page_one)
    assert ">Older<" not in page_two
    assert run_links(back) == run_links(page_one)


def test_run_list_pages_do_not_shift_when_runs_start(owner_client: Any) -> None:
    for _ in range(27):
        make_run(execute=False)
    page_one = owner_client.get("/evals/runs/").content.decode()
    older = re.search(r'href="\?(after=[^"]+)" rel="next">Older', page_one)
    assert older is not None
    expected = run_links(
        owner_client.get(f"/evals/runs/?{unescape(older[1])}").content.decode()
    )

    make_run(execute=False)
    make_run(execute=False)
    page_two = owner_client.get(f"/evals/runs/?{unescape(older[1])}").content.decode()

    assert len(expected) == 2
    assert run_links(page_two) == expected


@pytest.mark.parametrize(
    "query", ["after=nope", "before=%25%25", "after=" + "A" * 3000]
)
def test_run_list_with_a_broken_cursor_shows_the_newest_runs(
    owner_client: Any, finished: Run, query: str
) -> None:
    response = owner_client.get(f"/evals/runs/?{query}")

    assert response.status_code == 200
    assert run_links(response.content.decode()) == [finished.run_id]


def test_suite_page_shows_versions_runs_and_the_trend_chart(
    owner_client: Any, finished: Run
) -> None:
    html = owner_client.get("/evals/suites/smoke/").content.decode()

    assert f"<code>{finished.suite_sha256}</code>" in html
    assert '<span class="badge">current file</span>' in html
    assert 'id="suite-trend-figure" type="application/json"' in html
    assert 'src="/static/evals/js/suite_detail.js"' in html
    assert 'src="/static/vendor/plotly-basic-3.7.0.min.js"' in html


def test_new_run_form_starts_a_run_and_redirects_to_it(
    owner_client: Any, owner: Any, django_capture_on_commit_callbacks: Any
) -> None:
    form = owner_client.get("/evals/runs/new").content.decode()
    assert 'name="csrfmiddlewaretoken"' in form
    assert '<option value="smoke.jsonl">smoke (5 scenarios)</option>' in form

    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.post(
            "/evals/runs/new",
            {
                "suite": "smoke.jsonl",
                "profile": "minimal",
                "mode": "thought_only",
                "model": "scripted",
                "script": "",
                "sampler": "standard",
                "seed": "5",
            },
        )

    run = Run.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/evals/runs/{run.run_id}/"
    assert (run.created_by, run.config["startedVia"], run.status) == (
        owner,
        "web",
        Run.Status.COMPLETED,
    )


def test_new_run_form_shows_service_errors_and_stores_nothing(
    owner_client: Any, isolated: Path
) -> None:
    (isolated / "noscript.jsonl").write_text((SHIPPED / "smoke.jsonl").read_text())

    response = owner_client.post(
        "/evals/runs/new",
        {
            "suite": "noscript.jsonl",
            "profile": "minimal",
            "mode": "thought_only",
            "model": "scripted",
            "script": "",
            "sampler": "standard",
            "seed": "0",
        },
    )

    assert response.status_code == 400
    html = response.content.decode()
    assert "cannot read script noscript.script.jsonl" in html
    assert str(isolated) not in html
    assert Run.objects.count() == 0


def test_new_run_form_refuses_a_script_for_another_suite(
    owner_client: Any,
) -> None:
    response = owner_client.post(
        "/evals/runs/new",
        {
            "suite": "smoke.jsonl",
            "profile": "minimal",
            "mode": "thought_only",
            "model": "scripted",
            "script": "idle-v1.script.jsonl",
            "sampler": "standard",
            "seed": "0",
        },
    )

    assert response.status_code == 400
    html = response.content.decode()
    assert (
        '<p class="error">script idle-v1.script.jsonl has no output for any of '
        "the 5 scenarios of suite smoke; missing: smoke:stable-plains, "
        "smoke:sheltered-night, smoke:hunger-raw-mutton, smoke:fox-at-dawn, "
        "smoke:zombie-close</p>"
    ) in html
    assert Run.objects.count() == 0


def test_new_run_form_needs_csrf(client: Any, owner: Any) -> None:
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner)

    response = strict.post("/evals/runs/new", {"suite": "smoke.jsonl"})

    assert response.status_code == 403
    assert Run.objects.count() == 0


def test_suite_trend_figure_is_a_plain_plotly_dict(finished: Run) -> None:
    failing = make_run("idle-v1", script="idle-v1-regressed.script.jsonl")

    figure = charts.suite_trend_figure([finished, failing])

    assert [t["name"] for t in figure["data"]] == [
        "action rate",
        "compulsion proxy",
        "grounding pass rate",
        "repetition rate",
        "scenario pass rate",
    ]
    assert figure["data"][0]["x"] == [finished.run_id, failing.run_id]
    assert figure["data"][0]["y"] == [0.4, failing.metrics["action_rate"]]
    assert figure["data"][1]["y"] == [0.0, 0.25]
    assert figure["data"][4]["y"] == [1.0, 0.9]
    assert figure["layout"]["yaxis"]["range"] == [0, 1.05]
    json.dumps(figure)


def test_run_page_renders_a_run_of_another_benchmark_kind(owner_client: Any) -> None:
    from django.utils import timezone

    from evals.models import Benchmark, CaseResult

    pack = Benchmark.objects.create(
        benchmark_id="memory-pack", kind=Benchmark.Kind.PACK, title="pack"
    )
    run = Run.objects.create(
        run_id="ci-run-1",
        benchmark=pack,
        status=Run.Status.COMPLETED,
        source=Run.Source.API,
        started_at=timezone.now(),
        total_cases=1,
        passed_cases=1,
        metrics={"recall": 0.9},
    )
    CaseResult.objects.create(run=run, case_id="case-1", passed=True)

    response = owner_client.get("/evals/runs/ci-run-1/")

    html = response.content.decode()
    assert response.status_code == 200
    # The case results page of a recorded run, not the scenario page.
    assert '<a href="/benchmarks/memory-pack/">memory-pack</a>' in html
    assert "<code>recall</code></td><td>0.9</td>" in html
    assert '<tr><td><code>case-1</code></td><td data-label="Result">' in html
    assert "/evals/suites/memory-pack/" not in html
