"""REST API of the harness: POST/GET /api/evals/runs, GET /api/evals/suites."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.models import Benchmark, Run
from tests.api_errors import error_fields

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("suites")]

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"
RUN_KEYS = {
    "runId",
    "benchmarkId",
    "kind",
    "status",
    "progress",
    "config",
    "suiteSha256",
    "startedAt",
    "completedAt",
    "totalCases",
    "passedCases",
    "failedCases",
    "metrics",
    "verdict",
    "error",
    "url",
}
SMOKE_POST = {
    "suite": "smoke",
    "profile": "balanced",
    "mode": "thought_only",
    "model": "scripted",
}


@pytest.fixture
def session_client(owner: Any) -> APIClient:
    client = APIClient()
    client.force_login(owner)
    return client


def post_run(client: APIClient, body: dict[str, Any], capture: Any) -> Any:
    with capture(execute=True):
        return client.post("/api/evals/runs", body, format="json")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/evals/runs"),
        ("post", "/api/evals/runs"),
        ("get", "/api/evals/runs/20260101000000-abcdef"),
        ("get", "/api/evals/suites"),
    ],
)
def test_anonymous_callers_get_401(
    anon_client: APIClient, method: str, path: str
) -> None:
    response = getattr(anon_client, method)(path, SMOKE_POST, format="json")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert Run.objects.count() == 0


def test_post_starts_a_run_and_answers_202_with_it(
    session_client: APIClient,
    owner: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    response = post_run(
        session_client, {**SMOKE_POST, "seed": 9}, django_capture_on_commit_callbacks
    )

    assert response.status_code == 202
    body = response.json()
    assert set(body) == RUN_KEYS
    run = Run.objects.get()
    assert body["runId"] == run.run_id
    assert body["benchmarkId"] == "smoke"
    assert body["status"] == "queued"
    assert body["progress"] == {"done": 0, "total": 5}
    assert body["config"]["seed"] == 9
    assert body["config"]["startedVia"] == "api"
    assert body["url"] == f"http://testserver/evals/runs/{run.run_id}/"
    assert run.created_by == owner
    # The chord ran after commit (eagerly in tests): the run is finished.
    assert (run.status, run.verdict_passed) == (Run.Status.COMPLETED, True)


def test_get_one_run_shows_status_progress_metrics_and_verdict(
    session_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    run_id = post_run(
        session_client, SMOKE_POST, django_capture_on_commit_callbacks
    ).json()["runId"]

    body = session_client.get(f"/api/evals/runs/{run_id}").json()

    assert body["status"] == "completed"
    assert body["progress"] == {"done": 5, "total": 5}
    assert body["metrics"]["action_rate"] == 0.4
    assert body["verdict"] == {"pass": True, "failedProperties": []}
    assert (body["totalCases"], body["passedCases"], body["failedCases"]) == (5, 5, 0)
    assert body["completedAt"] is not None


def test_agent_key_callers_run_as_the_agents_owner(
    agent_client: APIClient, owner: Any, django_capture_on_commit_callbacks: Any
) -> None:
    response = post_run(agent_client, SMOKE_POST, django_capture_on_commit_callbacks)

    assert response.status_code == 202
    assert Run.objects.get().created_by == owner


@pytest.mark.parametrize(
    "suite", ["../../etc/passwd", "/etc/passwd", "../suites/../../outside.jsonl"]
)
def test_suite_paths_outside_the_suites_directory_are_refused(
    session_client: APIClient, suite: str
) -> None:
    response = session_client.post(
        "/api/evals/runs", {**SMOKE_POST, "suite": suite}, format="json"
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert list(error_fields(response)) == ["$.suite"]
    assert Run.objects.count() == 0


def test_script_outside_the_suites_directory_is_refused(
    session_client: APIClient, tmp_path: Path
) -> None:
    shutil.copy(SHIPPED / "smoke.script.jsonl", tmp_path / "evil.script.jsonl")

    response = session_client.post(
        "/api/evals/runs",
        {**SMOKE_POST, "script": str(tmp_path / "evil.script.jsonl")},
        format="json",
    )

    assert response.status_code == 400
    assert list(error_fields(response)) == ["$.script"]


def test_unknown_suite_name_is_400(session_client: APIClient) -> None:
    response = session_client.post(
        "/api/evals/runs", {**SMOKE_POST, "suite": "nope"}, format="json"
    )

    assert response.status_code == 400
    assert error_fields(response) == {
        "$.suite": ["no suite named 'nope' in the suites directory"]
    }


def test_unknown_suite_and_missing_fields_are_reported_at_once(
    session_client: APIClient,
) -> None:
    response = session_client.post(
        "/api/evals/runs", {"suite": "nope", "script": "gone"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["message"] == "Invalid input: 5 problems."
    assert error_fields(response) == {
        "$.suite": ["no suite named 'nope' in the suites directory"],
        "$.profile": ["This field is required."],
        "$.mode": ["This field is required."],
        "$.model": ["This field is required."],
        "$.script": ["no script named 'gone' in the suites directory"],
    }
    assert Run.objects.count() == 0


def test_answers_show_no_server_paths(
    session_client: APIClient,
    suites: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    run_id = post_run(
        session_client,
        {**SMOKE_POST, "script": "smoke.script.jsonl"},
        django_capture_on_commit_callbacks,
    ).json()["runId"]
    (suites / "broken.jsonl").write_text('{"scenario_id": "a"}\n')

    body = session_client.get(f"/api/evals/runs/{run_id}").json()
    refused = session_client.post(
        "/api/evals/runs",
        {**SMOKE_POST, "suite": "broken", "model": "baseline"},
        format="json",
    )

    assert body["config"]["suitePath"] == "smoke.jsonl"
    assert body["config"]["script"] == "smoke.script.jsonl"
    assert refused.status_code == 400
    assert refused.json()["error"]["message"].startswith("broken.jsonl: 1 invalid")
    for text in (str(body), refused.content.decode()):
        assert str(suites) not in text
        assert str(suites.parent) not in text


def test_script_covering_no_scenario_is_refused_with_the_missing_ids(
    session_client: APIClient,
) -> None:
    response = session_client.post(
        "/api/evals/runs",
        {**SMOKE_POST, "script": "idle-v1.script.jsonl"},
        format="json",
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert error["missingScenarioIds"] == [
        "smoke:stable-plains",
        "smoke:sheltered-night",
        "smoke:hunger-raw-mutton",
        "smoke:fox-at-dawn",
        "smoke:zombie-close",
    ]
    assert list(error_fields(response)) == ["$.script"]
    assert error_fields(response)["$.script"][0].startswith(
        "script idle-v1.script.jsonl has no output for any of the 5 scenarios "
        "of suite smoke; missing: smoke:stable-plains, "
    )
    assert (Run.objects.count(), Benchmark.objects.count()) == (0, 0)


def test_script_covering_some_scenarios_still_runs(
    session_client: APIClient,
    suites: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    lines = (suites / "smoke.script.jsonl").read_text().splitlines()
    (suites / "part.script.jsonl").write_text("\n".join(lines[:2]) + "\n")

    response = post_run(
        session_client,
        {**SMOKE_POST, "script": "part.script.jsonl"},
        django_capture_on_commit_callbacks,
    )

    assert response.status_code == 202


def test_bad_choices_are_400_per_field(session_client: APIClient) -> None:
    response = session_client.post(
        "/api/evals/runs",
        {"suite": "smoke", "profile": "huge", "mode": "x", "model": "scripted"},
        format="json",
    )

    assert response.status_code == 400
    assert sorted(error_fields(response)) == ["$.mode", "$.profile"]


def test_invalid_suite_file_is_400_with_every_invalid_line(
    session_client: APIClient, suites: Path
) -> None:
    (suites / "broken.jsonl").write_text('{"scenario_id": "a"}\n\n[]\n')

    response = session_client.post(
        "/api/evals/runs",
        {**SMOKE_POST, "suite": "broken", "model": "baseline"},
        format="json",
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "suite_invalid"
    assert [line["line"] for line in error["invalidLines"]] == [1, 3]
    assert (Run.objects.count(), Benchmark.objects.count()) == (0, 0)


def test_list_filters_by_suite_status_and_verdict(
    session_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    post_run(session_client, SMOKE_POST, django_capture_on_commit_callbacks)
    post_run(
        session_client,
        {
            **SMOKE_POST,
            "suite": "idle-v1",
            "script": "idle-v1-regressed.script.jsonl",
        },
        django_capture_on_commit_callbacks,
    )

    def ids(query: str) -> list[str]:
        body = session_client.get(f"/api/evals/runs{query}").json()
        return [r["benchmarkId"] for r in body["results"]]

    assert sorted(ids("")) == ["idle-v1", "smoke"]
    assert ids("?suite=smoke") == ["smoke"]
    assert ids("?verdict=fail") == ["idle-v1"]
    assert ids("?verdict=pass&status=completed") == ["smoke"]
    assert ids("?status=running") == []
    assert session_client.get("/api/evals/runs?limit=1").json()["count"] == 2
    assert len(session_client.get("/api/evals/runs?limit=1").json()["results"]) == 1


@pytest.mark.parametrize(
    ("query", "field"),
    [("?limit=0", "limit"), ("?offset=x", "offset"), ("?status=nope", "status")],
)
def test_bad_list_parameters_are_400(
    session_client: APIClient, query: str, field: str
) -> None:
    response = session_client.get(f"/api/evals/runs{query}")

    assert response.status_code == 400
    assert list(error_fields(response)) == [f"?{field}"]


def test_every_bad_list_parameter_is_reported_at_once(
    session_client: APIClient,
) -> None:
    response = session_client.get(
        "/api/evals/runs?status=nope&verdict=maybe&limit=0&offset=x"
    )

    assert response.status_code == 400
    assert error_fields(response) == {
        "?status": ["unknown status 'nope'."],
        "?verdict": ["verdict must be pass or fail."],
        "?limit": ["limit must be between 1 and 200."],
        "?offset": ["offset must be an integer."],
    }


def test_unknown_run_is_404(session_client: APIClient) -> None:
    response = session_client.get("/api/evals/runs/20260101000000-abcdef")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_suites_lists_files_on_disk_with_versions_seen(
    session_client: APIClient,
    suites: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    post_run(session_client, SMOKE_POST, django_capture_on_commit_callbacks)
    (suites / "broken.jsonl").write_text("{}\n")

    body = session_client.get("/api/evals/suites").json()

    by_id = {s["suiteId"]: s for s in body["results"]}
    assert sorted(by_id) == ["broken", "idle-v1", "smoke"]
    smoke_sha = hashlib.sha256((suites / "smoke.jsonl").read_bytes()).hexdigest()
    smoke = by_id["smoke"]
    assert {
        k: smoke[k] for k in ("lineCount", "suiteSha256", "valid", "hasScript")
    } == {
        "lineCount": 5,
        "suiteSha256": smoke_sha,
        "valid": True,
        "hasScript": True,
    }
    assert [v["suiteSha256"] for v in smoke["versions"]] == [smoke_sha]
    assert smoke["url"] == "/evals/suites/smoke/"
    assert (by_id["broken"]["valid"], by_id["broken"]["invalidLines"]) == (False, 1)
    assert by_id["idle-v1"]["versions"] == []


def _component(client: APIClient, name: str) -> dict[str, Any]:
    schema = client.get("/api/schema/?format=json").json()
    component: dict[str, Any] = schema["components"]["schemas"][name]
    return component


def test_the_run_schema_is_the_shape_of_every_run_answer(
    session_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    queued = post_run(session_client, SMOKE_POST, django_capture_on_commit_callbacks)
    run_id = queued.json()["runId"]
    answers = [
        queued.json(),
        session_client.get(f"/api/evals/runs/{run_id}").json(),
        *session_client.get("/api/evals/runs").json()["results"],
    ]
    run = _component(session_client, "EvalRun")

    assert set(run["properties"]) == RUN_KEYS
    assert set(run["required"]) == RUN_KEYS
    for answer in answers:
        assert set(answer) == set(run["properties"])
    assert run["properties"]["startedAt"]["format"] == "date-time"
    assert run["properties"]["verdict"].get("nullable") is True
    page = _component(session_client, "EvalRunList")
    assert page["properties"]["results"]["items"] == {
        "$ref": "#/components/schemas/EvalRun"
    }


def test_the_suite_schema_is_the_shape_of_the_suites_answer(
    session_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    post_run(session_client, SMOKE_POST, django_capture_on_commit_callbacks)

    suites = session_client.get("/api/evals/suites").json()["results"]
    suite = _component(session_client, "EvalSuite")
    version = _component(session_client, "SuiteVersion")

    smoke = next(s for s in suites if s["suiteId"] == "smoke")
    assert smoke["versions"], "a run has seen a version of smoke"
    for answer in suites:
        assert set(answer) == set(suite["properties"]) == set(suite["required"])
        for seen in answer["versions"]:
            assert set(seen) == set(version["properties"])
    assert suite["properties"]["versions"]["items"] == {
        "$ref": "#/components/schemas/SuiteVersion"
    }
