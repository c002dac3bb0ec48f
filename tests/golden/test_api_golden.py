"""Golden API answers: one request per endpoint and method, answered exactly
as when the answers were recorded.

Each test builds its data through the API (or a service where the API has no
way in), under a frozen clock and with sequences reset, so ids and times are
the same on every run and on SQLite and PostgreSQL alike. What remains random
(API keys, generated ids) is masked by ``snapshots.Masker``. A difference fails
with a diff; ``GOLDEN_UPDATE=1`` (or ``--golden-update``) rewrites the answers
in ``tests/golden/answers/`` after a deliberate change of the API.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from core.scopes import SCOPES
from evals.examples import example_manifest, example_run_summary, example_shadow_record
from prkeepalive.models import Decision, PullRequest, Repository, Round
from prkeepalive.services.intake import sign
from stream.core.planning import OriginKind, TaskOrigin
from stream.services.agents import agent_create
from stream.services.planning_task_store import task_add
from tests.golden.snapshots import Recorder

pytestmark = [
    pytest.mark.django_db(transaction=True, reset_sequences=True),
    pytest.mark.usefixtures("frozen_clock"),
]

CALM_FACTS: dict[str, Any] = {
    "bot": {
        "position": {"x": 10, "y": 64, "z": -3},
        "health": 20,
        "hunger": 18,
        "inventorySummary": [{"item": "oak_log", "count": 4}],
        "timeOfDay": "day",
    },
    "world": {
        "biome": "forest",
        "nearbyEntities": [{"kind": "cow", "count": 2, "distanceMin": 6}],
    },
}


@contextmanager
def _workers_after_the_answer() -> Iterator[None]:
    """Work sent after commit runs once the answer is built, as with a real
    broker: the request runs inside a transaction that commits on leaving this
    block, and the eager Celery tasks run then (in a transactional test they
    would otherwise run inside the view, before its answer)."""
    with transaction.atomic():
        yield


def _user_api(user: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def _agent_recorder(name: str, owner: Any) -> tuple[Recorder, APIClient, Any]:
    created = agent_create(name="alpha", owner=owner, scopes=SCOPES)
    recorder = Recorder(name)
    recorder.masker.secrets[created.api_key] = "<api-key>"
    # A key reads es_<prefix>_<secret>; its prefix shows on its own too.
    recorder.masker.secrets[created.api_key.split("_")[1]] = "<key-prefix>"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {created.api_key}")
    return recorder, client, created.agent


def test_cognitive_stream_answers_are_unchanged(
    owner: Any, golden_update: bool
) -> None:
    rec, api, _ = _agent_recorder("stream", owner)
    stream = "/api/cognitive-stream/"
    rec.call("whoami", api, "get", "/api/whoami")
    rec.call("percept", api, "post", f"{stream}percepts", {"facts": CALM_FACTS})
    rec.call(
        "percept-400", api, "post", f"{stream}percepts", {"facts": "not an object"}
    )
    goal = "Two cows graze nearby. [GOAL: collect oak_log 4]"
    thought = rec.call("thought", api, "post", f"{stream}thoughts", {"content": goal})
    rec.call(
        "thought-plain",
        api,
        "post",
        f"{stream}thoughts",
        {"content": "The cows keep grazing; nothing changes."},
    )
    rec.call("thought-400", api, "post", f"{stream}thoughts", {})
    rec.call("recent", api, "get", f"{stream}recent?limit=5")
    rec.call("actionable", api, "get", f"{stream}actionable?limit=10")
    rec.call("actionable-400", api, "get", f"{stream}actionable?limit=101")
    ids = [thought.json()["id"]]
    rec.call("ack", api, "post", f"{stream}ack", {"thoughtIds": ids})
    rec.call("ack-400", api, "post", f"{stream}ack", {"thoughtIds": "x"})
    rec.call("poke", api, "post", f"{stream}poke")
    rec.call("poke-400", api, "post", f"{stream}poke", {"unexpected": 1})
    rec.call("counters", api, "get", f"{stream}counters")
    rec.call("counters-reset", api, "post", f"{stream}counters/reset")
    rec.call("events", api, "get", f"{stream}events")
    rec.call("anonymous-401", APIClient(), "get", f"{stream}recent")
    rec.check(golden_update)


def test_planning_answers_are_unchanged(owner: Any, golden_update: bool) -> None:
    rec, api, agent = _agent_recorder("planning", owner)
    for key in ("collect:oak_log", "mine:stone", "build:shelter"):
        action, _, target = key.partition(":")
        task_add(
            agent=agent,
            title=f"{action} {target}",
            action=action,
            target=target,
            metadata={"goalKey": key},
            origin=TaskOrigin(OriginKind.API, "golden"),
        )
    rec.call("list", api, "get", "/api/tasks")
    rec.call("list-400", api, "get", "/api/tasks?status=nonsense")
    claimed = rec.call("claim", api, "post", "/api/tasks/claim")
    pk = claimed.json()["task"]["id"]
    rec.call("claim-400", api, "post", "/api/tasks/claim", {"taskId": "x"})
    rec.call("detail", api, "get", f"/api/tasks/{pk}")
    rec.call("detail-404", api, "get", "/api/tasks/999")
    rec.call("progress", api, "post", f"/api/tasks/{pk}/progress", {"progress": 0.4})
    rec.call("progress-400", api, "post", f"/api/tasks/{pk}/progress", {"progress": 2})
    rec.call("complete", api, "post", f"/api/tasks/{pk}/complete", {"result": {"n": 8}})
    other = rec.call(
        "claim-executor", api, "post", "/api/tasks/claim", {"executor": "bot-2"}
    )
    other_pk = other.json()["task"]["id"]
    rec.call(
        "progress-409",
        api,
        "post",
        f"/api/tasks/{other_pk}/progress",
        {"progress": 0.5},
    )
    last = rec.call("claim-id", api, "post", "/api/tasks/claim", {"taskId": 3})
    last_pk = last.json()["task"]["id"]
    rec.call("fail-400", api, "post", f"/api/tasks/{last_pk}/fail")
    rec.call("fail", api, "post", f"/api/tasks/{last_pk}/fail", {"reason": "no trees"})
    rec.call("list-after", api, "get", "/api/tasks")
    rec.check(golden_update)


@pytest.fixture
def harness_on(settings: Any, tmp_path: Any) -> Any:
    import shutil
    from pathlib import Path

    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    settings.PACK_FILES_DIR = tmp_path / "pack-files"
    shipped = Path(__file__).resolve().parents[2] / "evals" / "suites"
    shutil.copytree(shipped, tmp_path / "suites")
    settings.EVALS_SUITES_DIR = tmp_path / "suites"
    # The commit a run records is the checkout's HEAD unless configured.
    settings.EVALSITE_CODE_VERSION = "0123456789abcdef0123456789abcdef01234567"
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = True
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True
    return settings


def test_eval_harness_answers_are_unchanged(
    owner: Any, harness_on: Any, golden_update: bool
) -> None:
    rec = Recorder("evals_harness")
    api = _user_api(owner)
    smoke = {
        "suite": "smoke",
        "profile": "balanced",
        "mode": "thought_only",
        "model": "scripted",
    }
    rec.call("suites", api, "get", "/api/evals/suites")
    with _workers_after_the_answer():
        created = rec.call("run-create", api, "post", "/api/evals/runs", smoke)
    rec.call(
        "run-create-400", api, "post", "/api/evals/runs", {**smoke, "suite": "nope"}
    )
    rec.call("runs", api, "get", "/api/evals/runs")
    rec.call("runs-400", api, "get", "/api/evals/runs?limit=0")
    run_id = created.json().get("runId", "missing")
    rec.call("run-detail", api, "get", f"/api/evals/runs/{run_id}")
    rec.call("run-detail-404", api, "get", "/api/evals/runs/20260101000000-abcdef")
    rec.call("anonymous-401", APIClient(), "get", "/api/evals/runs")
    rec.check(golden_update)


def test_benchmark_answers_are_unchanged(
    owner: Any, staff: Any, harness_on: Any, golden_update: bool
) -> None:
    rec = Recorder("evals_benchmarks")
    api = _user_api(staff)
    rec.call("pack-create", api, "post", "/api/benchmarks/packs", example_manifest())
    rec.call("pack-create-400", api, "post", "/api/benchmarks/packs", {"x": 1})
    rec.call("packs", api, "get", "/api/benchmarks/packs")
    rec.call("pack-detail", api, "get", "/api/benchmarks/packs/ama-memory")
    rec.call("pack-detail-404", api, "get", "/api/benchmarks/packs/nope")
    for run_id, hour in (("run-1", 9), ("run-2", 11)):
        summary = example_run_summary(run_id, hour=hour)
        rec.call(f"run-create-{run_id}", api, "post", "/api/benchmarks/runs", summary)
    broken = {**example_run_summary("run-3"), "totalCases": -1}
    rec.call("run-create-400", api, "post", "/api/benchmarks/runs", broken)
    rec.call("runs", api, "get", "/api/benchmarks/runs?benchmark=ama-memory")
    rec.call("run-detail", api, "get", "/api/benchmarks/runs/run-1")
    rec.call("run-detail-404", api, "get", "/api/benchmarks/runs/nope")
    rec.call(
        "shadow-create",
        api,
        "post",
        "/api/benchmarks/shadow",
        {"records": [example_shadow_record("t1"), example_shadow_record("t2")]},
    )
    rec.call(
        "shadow-create-400", api, "post", "/api/benchmarks/shadow", {"records": []}
    )
    rec.call("shadow", api, "get", "/api/benchmarks/shadow?day=2026-03-06")
    rec.call("shadow-400", api, "get", "/api/benchmarks/shadow?day=yesterday")
    rec.call("shadow-detail", api, "get", "/api/benchmarks/shadow/t2")
    rec.call(
        "baseline-create",
        api,
        "post",
        "/api/benchmarks/baselines",
        {"snapshotId": "required-main", "notes": "main"},
    )
    rec.call(
        "baseline-create-400",
        api,
        "post",
        "/api/benchmarks/baselines",
        {"snapshotId": "../etc"},
    )
    rec.call("baselines", api, "get", "/api/benchmarks/baselines")
    rec.call("baseline-detail", api, "get", "/api/benchmarks/baselines/required-main")
    rec.call("gate", api, "get", "/api/benchmarks/gate?snapshot=required-main")
    rec.call("gate-400", api, "get", "/api/benchmarks/gate")
    rec.call("owner-packs", _user_api(owner), "get", "/api/benchmarks/packs")
    rec.check(golden_update)


def test_gridworld_answers_are_unchanged(
    owner: Any, harness_on: Any, golden_update: bool
) -> None:
    rec = Recorder("gridworld")
    api = _user_api(owner)
    config = {"map": "maze", "episodes": 4, "seed": 7, "lane_size": 2}
    with _workers_after_the_answer():
        created = rec.call(
            "batch-create", api, "post", "/api/gridworld/batches", config
        )
    rec.call(
        "batch-create-400",
        api,
        "post",
        "/api/gridworld/batches",
        {"map": "nowhere", "episodes": 0},
    )
    pk = created.json().get("id", 1)
    base = f"/api/gridworld/batches/{pk}"
    rec.call("batches", api, "get", "/api/gridworld/batches")
    rec.call("batch-detail", api, "get", base)
    rec.call("batch-detail-404", api, "get", "/api/gridworld/batches/999")
    rec.call("episodes", api, "get", f"{base}/episodes")
    rec.call("episode-detail", api, "get", f"{base}/episodes/2")
    receipt = rec.call("episode-receipt", api, "get", f"{base}/episodes/2/receipt")
    rec.call("verify", api, "post", "/api/gridworld/verify", receipt.content)
    rec.call("verify-400", api, "post", "/api/gridworld/verify", [1, 2])
    rec.check(golden_update)


HEAD = "abc1234def5678"
ISSUE = "## Scope\nx\n## Tasks\n- [ ] y\n## Acceptance Criteria\n- z"


def _recorded_pull() -> None:
    repo = Repository.objects.create(full_name="acme/widgets")
    pull = PullRequest.objects.create(
        repository=repo,
        number=7,
        title="Parser fix",
        head_sha=HEAD,
        labels=["agents:keepalive"],
    )
    ok = Decision.objects.create(
        pull=pull,
        repository=repo,
        lane="gate",
        ok=True,
        reason="ok",
        detail="every condition holds",
        activation_comment_id=99,
        agent="codex",
        head_sha=HEAD,
        cap=2,
        active=0,
        trace="ka-7-r1",
        line="DISPATCH: ok=true path=gate reason=ok pr=#7 activation=99 agent=codex head=abc1234 cap=2 active=0 trace=ka-7-r1",
    )
    Round.objects.create(
        repository=repo,
        pull=pull,
        decision=ok,
        activation_comment_id=99,
        number=1,
        trace="ka-7-r1",
        status=Round.Status.RUNNING,
        instruction_comment_id=100,
        instruction_line="INSTRUCTION: ok=true author=stranske comment=100 ack=ok head=abc1234 trace=ka-7-r1",
        worker_line="WORKER: action=execute reason=new-instruction pr=#7 head=abc1234 instr=100 trace=ka-7-r1",
    )


def test_prkeepalive_answers_are_unchanged(
    owner: Any, settings: Any, golden_update: bool
) -> None:
    settings.PRKEEPALIVE_WEBHOOK_SECRET = "webhook-secret"
    _recorded_pull()
    rec = Recorder("prkeepalive")
    api = _user_api(owner)
    explain = {
        "event": "issue_comment",
        "payload": {
            "action": "created",
            "issue": {"number": 7, "pull_request": {}},
            "comment": {
                "id": 99,
                "body": "@codex go",
                "user": {"login": "alice", "type": "User"},
            },
        },
        "state": {
            "labels": ["agents:keepalive"],
            "gate": "pending",
            "activeRuns": 0,
            "pr": {"number": 7, "headSha": HEAD},
            "issueBody": ISSUE,
        },
    }
    rec.call("explain", api, "post", "/api/prkeepalive/explain", explain)
    rec.call("explain-400", api, "post", "/api/prkeepalive/explain", {"event": "x"})
    pulls = "/api/prkeepalive/repos/acme/widgets/pulls"
    rec.call("decisions", api, "get", f"{pulls}/7/decisions")
    rec.call("rounds", api, "get", f"{pulls}/7/rounds")
    rec.call("rounds-400", api, "get", f"{pulls}/7/rounds?limit=0")
    rec.call("rounds-404", api, "get", f"{pulls}/8/rounds")
    hook = "/api/prkeepalive/github/webhook"
    for event, payload in (
        ("ping", {"zen": "hi"}),
        ("push", {"repository": {"full_name": "acme/widgets"}}),
    ):
        body = json.dumps(payload).encode()
        rec.call(
            f"webhook-{event}",
            Client(),
            "post",
            hook,
            body,
            HTTP_X_GITHUB_EVENT=event,
            HTTP_X_GITHUB_DELIVERY=f"delivery-{event}",
            HTTP_X_HUB_SIGNATURE_256=sign("webhook-secret", body),
        )
    rec.call(
        "webhook-401",
        Client(),
        "post",
        hook,
        b'{"zen": "hi"}',
        HTTP_X_GITHUB_EVENT="ping",
        HTTP_X_GITHUB_DELIVERY="delivery-bad",
        HTTP_X_HUB_SIGNATURE_256="sha256=00",
    )
    rec.check(golden_update)


def _api_routes() -> list[str]:
    def walk(patterns: list[Any], prefix: str) -> list[str]:
        found: list[str] = []
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                found += walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                found.append(route)
        return found

    return sorted(r for r in walk(get_resolver().url_patterns, "") if "api/" in r)


def test_api_paths_and_methods_are_unchanged(owner: Any, golden_update: bool) -> None:
    """The set of (path, method) pairs of the OpenAPI schema and the API
    routes of the URLconf; the schemas themselves may be generated otherwise."""
    response = _user_api(owner).get("/api/schema/?format=json")
    assert response.status_code == 200
    paths = json.loads(response.content)["paths"]
    pairs = sorted(
        f"{method.upper()} {path}"
        for path, operations in paths.items()
        for method in operations
        if method in ("get", "post", "put", "patch", "delete")
    )
    rec = Recorder("openapi")
    rec.exchanges.append({"name": "schema-operations", "operations": pairs})
    rec.exchanges.append({"name": "urlconf-api-routes", "routes": _api_routes()})
    rec.call("docs", _user_api(owner), "get", "/api/docs/")
    rec.check(golden_update)
