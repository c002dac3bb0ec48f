"""A hostile-input corpus over every POST operation of the API.

Each operation in the OpenAPI schema gets a valid body with every string,
number and container in it replaced, one at a time, by hostile values (NUL,
lone surrogates, bidi overrides, zero-width characters, noncharacters,
values longer than any column or file name, 1 MB strings, NaN/Infinity,
wrong types), and whole hostile bodies (deep nesting, over the size limit,
BOM-prefixed, UTF-16, not UTF-8, 100,000 items). No answer may be a server
error, and a refused request writes nothing (bar the documented copy of an
invalid pack upload kept for review). The counts go to the README's
Reliability table (printed with ``-s``).
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from tests.hostile import (
    HOSTILE_NUMBERS,
    HOSTILE_STRINGS,
    hostile_bodies,
)

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"

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

TEMPLATES: dict[str, dict[str, Any]] = {
    "/api/benchmarks/packs": {
        "schemaVersion": 1,
        "benchmarkId": "pack-x",
        "title": "T",
        "tags": ["a"],
        "cases": [{"id": "c", "prompt": "p", "expectedSignals": ["s"]}],
    },
    "/api/benchmarks/runs": {
        "schemaVersion": 1,
        "runId": "run-x",
        "benchmarkId": "base",
        "status": "completed",
        "startedAt": "2026-03-06T09:00:00Z",
        "completedAt": "2026-03-06T09:01:00Z",
        "totalCases": 1,
        "passedCases": 1,
        "failedCases": 0,
        "metrics": {"score": 0.5},
        "notes": "n",
        "gitRef": "main",
        "caseResults": [{"caseId": "c", "passed": True, "score": 1}],
    },
    "/api/benchmarks/shadow": {
        "schemaVersion": 1,
        "traceId": "trace-x",
        "recordedAt": "2026-03-06T09:00:00Z",
        "sessionKey": "agent:main",
        "promptHash": "abc",
        "promptLength": 4,
        "retrievalQueryHash": "def",
        "retrievalQueryLength": 4,
        "recallMode": "graph_mode",
        "recallResultLimit": 4,
        "source": "cold_fallback",
        "recalledMemoryCount": 0,
        "injected": False,
        "contextChars": 0,
        "memoryIds": ["m1"],
        "durationMs": 1.5,
    },
    "/api/benchmarks/baselines": {"snapshotId": "snap-x", "notes": "n"},
    "/api/reviews/scores": {
        "config": "quality",
        "kind": "scenario_result",
        "ref": "run-x/c1",
        "value": 3,
        "comment": "c",
    },
    "/api/cognitive-stream/ack": {"thoughtIds": [1], "processedBy": "planner"},
    "/api/cognitive-stream/counters/reset": {},
    "/api/cognitive-stream/percepts": {"facts": CALM_FACTS, "metadata": {"k": "v"}},
    "/api/cognitive-stream/poke": {},
    "/api/cognitive-stream/thoughts": {
        "content": "I should rest.",
        "type": "reflection",
        "metadata": {"k": "v"},
    },
    "/api/evals/runs": {
        "suite": "smoke",
        "profile": "balanced",
        "mode": "thought_only",
        "model": "scripted",
        "seed": 1,
    },
    "/api/gridworld/batches": {"map": "maze", "episodes": 1, "seed": 7},
    "/api/prkeepalive/explain": {
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
            "gate": "success",
            "activeRuns": 0,
            "pr": {"number": 7, "headSha": "a" * 40},
            "issueBody": "Fix the parser.",
        },
    },
    "/api/tasks/claim": {"executor": "bot"},
    "/api/tasks/{id}/progress": {
        "progress": 0.5,
        "blockedReason": "b",
        "executor": "bot",
        "metadata": {"k": "v"},
    },
    "/api/tasks/{id}/complete": {"result": {"k": "v"}, "executor": "bot"},
    "/api/tasks/{id}/fail": {"reason": "r", "executor": "bot"},
}

# Writes a refused request may make: the copy of an invalid pack upload kept
# for review, and the bookkeeping of who called.
ALLOWED_WRITES = (
    "evals_invalidupload",
    "django_session",
    "auth_user",
    "stream_agent",
    "stream_planningstate",
)
# A key's last use is recorded (at most once a minute) whatever the answer:
# the key was used even when the request is refused.
ALLOWED_UPDATES = (('"accounts_apikey"', '"last_used_at"'),)


def post_operations() -> list[str]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        path for path, operations in schema["paths"].items() if "post" in operations
    )


def leaf_mutations(template: Any) -> Iterator[tuple[str, Any]]:
    """(label, body) for every position in ``template`` and hostile value."""

    def positions(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
        yield path
        if isinstance(value, dict):
            for key, child in value.items():
                yield from positions(child, (*path, key))
        elif isinstance(value, list):
            for index, child in enumerate(value):
                yield from positions(child, (*path, index))

    for path in positions(template, ()):
        if not path:
            continue
        original = template
        for step in path:
            original = original[step]
        for label, hostile in [*HOSTILE_STRINGS, *HOSTILE_NUMBERS]:
            if label in BIG_STRINGS and not isinstance(original, str):
                continue  # size is judged where text goes; elsewhere a type error
            body = copy.deepcopy(template)
            target = body
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = hostile
            yield f"{'.'.join(map(str, path))}={label}", body
        if isinstance(path[-1], str):
            for label, hostile in HOSTILE_STRINGS[:4]:
                body = copy.deepcopy(template)
                target = body
                for step in path[:-1]:
                    target = target[step]
                target[hostile] = target.pop(path[-1])
                yield f"key {'.'.join(map(str, path))}={label}", body


BIG_STRINGS = {"1MB", "100k-lines", "over-file-name"}
UNIQUE_IDS = {"pack-x", "run-x", "trace-x", "snap-x"}


def fresh_ids(body: Any, index: int) -> Any:
    """``body`` with the template's ids made unique, so that each mutation
    reaches validation and storage instead of a conflict with the last."""
    if isinstance(body, dict):
        for key, value in body.items():
            if isinstance(value, str) and value in UNIQUE_IDS:
                body[key] = f"{value}-{index}"
    return body


class WriteWatch:
    """Collects INSERT/UPDATE/DELETE statements on tables not allowed."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any):
        head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
        allowed_update = head == "UPDATE" and any(
            table in sql and column in sql.split(" SET ", 1)[-1][:60]
            for table, column in ALLOWED_UPDATES
        )
        if (
            head in ("INSERT", "UPDATE", "DELETE")
            and not allowed_update
            and not any(
                f'"{table}"' in sql or f" {table} " in sql for table in ALLOWED_WRITES
            )
        ):
            self.writes.append(sql[:120])
        return execute(sql, params, many, context)


@pytest.fixture
def world(
    settings: Any, tmp_path: Path, owner: Any, agent: Any, staff: Any
) -> dict[str, Any]:
    import shutil

    from evals.services.benchmarks import benchmark_pack_create
    from stream.core.planning import OriginKind, TaskOrigin
    from stream.services.planning_task_store import task_add

    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = True
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    shutil.copytree(SHIPPED, tmp_path / "suites")
    settings.EVALS_SUITES_DIR = tmp_path / "suites"
    benchmark_pack_create(
        document={
            "schemaVersion": 1,
            "benchmarkId": "base",
            "title": "Base",
            "cases": [{"id": "c", "prompt": "p"}],
        }
    )
    task = task_add(
        agent=agent,
        title="collect oak_log",
        action="collect",
        target="oak_log",
        metadata={"goalKey": "collect:oak_log"},
        origin=TaskOrigin(OriginKind.API, "test"),
    )
    return {"task": task, "agent": agent, "staff": staff}


# Slow by design: every hostile value at every leaf of every POST operation.
def test_hostile_corpus_gets_no_server_error_and_refusals_write_nothing(
    world: dict[str, Any], agent_client: APIClient
) -> None:
    staff_client = APIClient(raise_request_exception=False)
    staff_client.force_authenticate(world["staff"])
    agent_client.raise_request_exception = False
    operations = post_operations()
    tally: Counter[str] = Counter()
    failures: list[str] = []
    for operation in operations:
        template = TEMPLATES.get(operation, {"value": "x"})
        url = operation.replace("{id}", str(world["task"].pk))
        client = (
            staff_client if operation.startswith("/api/benchmarks") else agent_client
        )
        cases: list[tuple[str, bytes, str]] = [
            (label, json.dumps(fresh_ids(body, index)).encode(), "application/json")
            for index, (label, body) in enumerate(leaf_mutations(template))
        ]
        cases.extend(hostile_bodies(template, settings.DATA_UPLOAD_MAX_MEMORY_SIZE))
        for label, raw, content_type in cases:
            watch = WriteWatch()
            with connection.execute_wrapper(watch):
                response = client.generic("POST", url, raw, content_type=content_type)
            tally["tried"] += 1
            if response.status_code >= 500:
                failures.append(f"{operation} {label}: {response.status_code}")
                if len(failures) > 60:
                    break
            elif response.status_code >= 400:
                tally["refused"] += 1
                if watch.writes:
                    failures.append(f"{operation} {label}: wrote {watch.writes[:2]}")
                body = response.content
                if len(body) > 20_000:
                    failures.append(f"{operation} {label}: {len(body)}-byte answer")
    print(
        f"\nhostile corpus: {len(operations)} POST operations, "
        f"{tally['tried']} requests, {tally['refused']} refused, "
        f"{tally['tried'] - tally['refused']} accepted, 0 server errors"
        if not failures
        else ""
    )
    assert set(TEMPLATES) <= set(operations)
    assert not failures, "\n".join(failures)
    assert tally["refused"] > tally["tried"] // 2
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE > 0


# --- REST reads of spans and traces -------------------------------------------

SPAN_FILTERS = (
    "agent",
    "run",
    "case",
    "thought",
    "model",
    "source",
    "status",
    "since",
    "until",
    "trace",
    "limit",
    "cursor",
)


def _cursor(raw: str) -> str:
    import base64

    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


# Values only a time, an id or a cursor can get wrong.
HOSTILE_READ_VALUES: list[tuple[str, str]] = [
    ("year-one-east", "0001-01-01T00:00:00+23:59"),
    ("year-9999-west", "9999-12-31T23:59:59-23:59"),
    ("leap-second", "2026-06-30T23:59:60Z"),
    ("long-fraction", "2026-03-06T12:00:00.1234567890123Z"),
    ("huge-int", str(10**40)),
    ("int64-max", str(2**63 - 1)),
    ("negative", "-1"),
    ("float", "1.5"),
    ("cursor-far-past", _cursor("0001-01-01T00:00:00-23:59|1")),
    ("cursor-far-future", _cursor("9999-12-31T23:59:59+00:00|9223372036854775807")),
    ("cursor-id-overflow", _cursor(f"2026-03-06T12:00:00+00:00|{10**40}")),
    ("cursor-naive", _cursor("2026-03-06T12:00:00|1")),
    ("cursor-not-utf-8", "__79"),
]


def _query_value(value: str) -> str:
    from urllib.parse import quote

    # A lone surrogate goes out as the bytes it would be, which are no UTF-8.
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


def test_hostile_span_reads_get_no_server_error_and_write_nothing(
    agent_client: APIClient, agent: Any, staff: Any
) -> None:
    """Every filter of ``GET /api/spans`` and the ids of a span and a trace,
    with every hostile string and the values only times, ids and cursors can
    get wrong, read by the agent's key and by staff: a 200 or a 4xx that
    names what it refused, never a server error, never a write."""
    from datetime import UTC, datetime

    from traces.core.records import SOURCE_OTLP, SpanRecord
    from traces.services.spans import store_spans

    at = datetime(2026, 3, 6, 12, tzinfo=UTC)
    store_spans(
        [
            SpanRecord(
                trace_id="e" * 32,
                span_id="e" * 16,
                name="chat",
                source=SOURCE_OTLP,
                started_at=at,
                ended_at=at,
            )
        ],
        agent_id=agent.pk,
    )
    staff_client = APIClient(raise_request_exception=False)
    staff_client.force_authenticate(staff)
    agent_client.raise_request_exception = False
    values = [*HOSTILE_STRINGS, *HOSTILE_READ_VALUES]
    urls = [
        (f"?{name} {label}", f"/api/spans?{name}={_query_value(value)}")
        for name in SPAN_FILTERS
        for label, value in values
    ]
    urls += [
        (f"{kind} {label}", f"/api/{kind}/{_query_value(value)}")
        for kind in ("spans", "traces")
        for label, value in values
        if value and len(value) < 10_000
    ]
    failures: list[str] = []
    answers: Counter[int] = Counter()
    for label, url in urls:
        for client in (agent_client, staff_client):
            watch = WriteWatch()
            with connection.execute_wrapper(watch):
                response = client.get(url)
            answers[response.status_code] += 1
            if response.status_code >= 500:
                failures.append(f"{label}: {response.status_code}")
            elif response.status_code == 400 and label.startswith("?"):
                paths = [f["path"] for f in response.json()["error"]["fields"]]
                if paths != [label.split()[0]]:
                    failures.append(f"{label}: refused naming {paths}")
            if watch.writes:
                failures.append(f"{label}: wrote {watch.writes[:2]}")
            if len(response.content) > 20_000:
                failures.append(f"{label}: {len(response.content)}-byte answer")
    print(f"\nhostile span reads: {sum(answers.values())} requests, {dict(answers)}")
    assert not failures, "\n".join(failures)
    assert answers[400] > len(urls) // 2
