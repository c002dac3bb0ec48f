"""Repeats and reducer through every way of starting a scenario run (REST,
the New run form, ``eval_run``) and the uncertainty on the run's page and
in its detail answer."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from rest_framework.test import APIClient

from evals.models import Run
from tests.api_errors import error_fields
from tests.evals.harness_support import SMOKE_IDS, run_suite, stored_counts

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("suites")]

SMOKE_POST = {
    "suite": "smoke",
    "profile": "balanced",
    "mode": "thought_only",
    "model": "scripted",
}


@pytest.fixture
def page_client(owner: Any) -> Client:
    client = Client()
    client.force_login(owner)
    return client


@pytest.mark.parametrize("bad", [0, 101, "x", 2.5])
def test_api_refuses_bad_repeats_naming_the_field(client: APIClient, bad: Any) -> None:
    before = stored_counts()
    response = client.post(
        "/api/evals/runs", {**SMOKE_POST, "repeats": bad}, format="json"
    )
    assert response.status_code == 400
    assert list(error_fields(response)) == ["$.repeats"]
    assert stored_counts() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"reducer": "median"}, "$.reducer"),
        ({"reducer": "pass_at_4", "repeats": 3}, "$.reducer"),
    ],
)
def test_api_refuses_a_bad_reducer_naming_the_field(
    client: APIClient, body: dict[str, Any], field: str
) -> None:
    before = stored_counts()
    response = client.post("/api/evals/runs", {**SMOKE_POST, **body}, format="json")
    assert response.status_code == 400
    assert list(error_fields(response)) == [field]
    assert stored_counts() == before


def test_api_run_with_repeats_answers_its_uncertainty(
    client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        created = client.post(
            "/api/evals/runs",
            {**SMOKE_POST, "repeats": 3, "reducer": "max"},
            format="json",
        )
    assert created.status_code == 202
    assert created.json()["totalCases"] == 3 * len(SMOKE_IDS)
    assert created.json()["config"]["repeats"] == 3
    detail = client.get(f"/api/evals/runs/{created.json()['runId']}").json()
    found = detail["uncertainty"]
    assert (found["repeats"], found["reducer"]) == (3, "max")
    figure = found["metrics"]["passRate"]
    assert figure["n"] == len(SMOKE_IDS)
    assert figure["k"] == 3
    assert figure["ciLow"] <= figure["estimate"] <= figure["ciHigh"]


def test_api_run_without_repeats_answers_uncertainty_only_when_asked(
    client: APIClient, suites: Path
) -> None:
    run = run_suite(suites / "smoke.jsonl")
    plain = client.get(f"/api/evals/runs/{run.run_id}").json()
    asked = client.get(f"/api/evals/runs/{run.run_id}?uncertainty=true").json()
    bad = client.get(f"/api/evals/runs/{run.run_id}?uncertainty=maybe")
    assert "uncertainty" not in plain
    assert asked["uncertainty"]["metrics"]["passRate"]["k"] == 1
    assert bad.status_code == 400
    assert list(error_fields(bad)) == ["?uncertainty"]


def test_form_starts_a_run_with_repeats_and_reducer(
    page_client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    form = {
        **SMOKE_POST,
        "suite": "smoke.jsonl",
        "sampler": "standard",
        "seed": 0,
        "repeats": 2,
        "reducer": "majority",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = page_client.post("/evals/runs/new", form)
    assert response.status_code == 302
    run = Run.objects.get()
    assert (run.config["repeats"], run.config["reducer"]) == (2, "majority")
    assert run.case_results.count() == 2 * len(SMOKE_IDS)


@pytest.mark.parametrize("bad", ["0", "101", "x", "2.5"])
def test_form_refuses_bad_repeats_next_to_the_field(
    page_client: Client, bad: str
) -> None:
    form = {**SMOKE_POST, "suite": "smoke.jsonl", "sampler": "standard"}
    before = stored_counts()
    response = page_client.post(
        "/evals/runs/new", {**form, "seed": 0, "reducer": "mean", "repeats": bad}
    )
    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["repeats"]
    assert stored_counts() == before


def test_run_page_shows_each_figure_with_its_interval_and_the_advice(
    page_client: Client, suites: Path
) -> None:
    run = run_suite(suites / "smoke.jsonl", repeats=3)
    page = page_client.get(f"/evals/runs/{run.run_id}/").content.decode()
    assert "95% CI" in page
    assert f"n = {len(SMOKE_IDS)} scenarios, K = 3" in page
    assert run.uncertainty["advice"].split(": ", 1)[1] in page
    # The scripted model replays one output per scenario.
    assert "within-scenario variance 0" in page
    assert f"{SMOKE_IDS[0]}%232" in page  # the epoch's link, '#' escaped
    assert f"cases passed ({len(SMOKE_IDS)} scenarios × 3 repeats)" in page


def test_eval_run_with_repeats_prints_the_intervals(suites: Path) -> None:
    out = StringIO()
    call_command(
        "eval_run",
        "--suite", str(suites / "smoke.jsonl"), "--profile", "balanced",
        "--mode", "thought_only", "--model", "scripted", "--wait",
        "--repeats", "2", "--reducer", "mean",
        stdout=out, stderr=StringIO(),
    )  # fmt: skip
    run = Run.objects.get()
    assert run.case_results.count() == 2 * len(SMOKE_IDS)
    assert "repeats 2, reducer mean" in out.getvalue()
    assert f"passRate = {run.uncertainty['metrics']['passRate']['estimate']:.2f}" in (
        out.getvalue()
    )
    assert "K = 2" in out.getvalue()


@pytest.mark.parametrize("bad", ["0", "101", "x", "2.5"])
def test_eval_run_refuses_bad_repeats_with_exit_2(suites: Path, bad: str) -> None:
    before = stored_counts()
    with pytest.raises(CommandError) as caught:
        call_command(
            "eval_run",
            "--suite", str(suites / "smoke.jsonl"), "--profile", "balanced",
            "--mode", "thought_only", "--model", "scripted", "--repeats", bad,
            stdout=StringIO(), stderr=StringIO(),
        )  # fmt: skip
    assert caught.value.returncode == 2
    assert "repeats" in str(caught.value)
    assert stored_counts() == before


def test_a_run_finished_before_intervals_were_stored_gets_them_computed(
    client: APIClient, page_client: Client, suites: Path
) -> None:
    run = run_suite(suites / "smoke.jsonl")
    stored = run.uncertainty
    Run.objects.filter(pk=run.pk).update(uncertainty={})
    answer = client.get(f"/api/evals/runs/{run.run_id}?uncertainty=true").json()
    page = page_client.get(f"/evals/runs/{run.run_id}/").content.decode()
    assert answer["uncertainty"] == stored
    assert f"n = {len(SMOKE_IDS)} scenarios, K = 1" in page
    # Computed once, then kept: the next view reads the stored figures.
    run.refresh_from_db()
    assert run.uncertainty == stored
