"""The OpenAPI schema tells the truth: schemathesis over every operation.

In-process (the WSGI application, no network), with an agent key and with a
staff session, once with data the schema calls valid and once with data it
calls invalid: every operation answers no server error, only status codes
and bodies its schema declares, accepts the requests the schema calls valid
(``positive_data_acceptance``) and refuses the ones it calls invalid
(``negative_data_rejection``). A handful of examples per operation keeps the
run short.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi import checks

from evalsite.wsgi import application
from traces.core.records import SOURCE_HARNESS, SOURCE_OTLP, SpanRecord, TokenUsage
from traces.models import Span
from traces.services.spans import store_spans

pytestmark = pytest.mark.django_db

# SCHEMATHESIS_EXAMPLES=40 explores further by hand; CI keeps it short.
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "6"))
# SCHEMATHESIS_ONLY="spans|traces" explores the operations whose label
# ("GET /api/spans") the expression finds, by hand.
ONLY = os.environ.get("SCHEMATHESIS_ONLY", "")
# A session cookie is still sent when a probe drops the bearer key, so the
# unauthenticated probe is judged for the agent key only.
CHECKED = [
    not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_headers_conformance,
    checks.response_schema_conformance,
    checks.missing_required_header,
]
DATA_CHECKS = [
    checks.positive_data_acceptance,
    checks.negative_data_rejection,
]
CHECKS: dict[str, list[Any]] = {}
CSRF_SECRET = "hardeninghardeninghardeninghard0"  # 32 characters, like Django's

# Schema-valid documents these operations refuse for a reason no schema can
# state: a documented 400 naming the field (404/409 schemathesis already
# takes from a valid request). Only these operations may answer 400 to valid
# data, and ``only_semantic_refusals`` holds each such 400 to the problems
# listed here (a regular expression on "<path> <message>" of every field).
UNSAFE_TEXT = r"contains (a control |an invisible formatting |a Unicode non)character"
SAFE_SEGMENT = r"must be a safe path segment"
SEMANTIC_REFUSALS: dict[str, list[str]] = {
    # A score for an unknown config, a subject that is not there or a value
    # its config does not take: 400 naming the field.
    "GET /api/benchmarks/runs": [
        r"^\?after after is not the next of a page of this list"
    ],
    "GET /api/benchmarks/shadow": [
        r"^\?after after is not the next of a page of this list"
    ],
    "GET /api/search": [
        r"^\?q ",
        r"^\?cursor cursor must be a nextCursor this API gave out",
        r"^\?(since|until) ",
        r"^\?score score must name the score the range is for ",
    ],
    "POST /api/reviews/scores": [r"^\$\.(config|ref|value) "],
    "GET /api/reviews/scores": [
        r"^\?cursor cursor must be a nextCursor this API gave out"
    ],
    "POST /api/benchmarks/packs": [
        UNSAFE_TEXT,  # case ids and tags
        SAFE_SEGMENT,
        r"memory-red-team benchmark packs require",  # that bench is off
        # An uploaded file that is neither a manifest nor a pack archive: its
        # refusal names the file, not a field of a document.
        r"^\$ .* is not valid JSON|^\$ benchmark pack must contain|^[^$]",
        r"must be a number between",  # past 2**53 in an undeclared property
    ],
    "POST /api/benchmarks/runs": [
        r"^\$\.benchmarkId benchmarkId must name a known benchmark",
        r"^\$\.passedCases passedCases \+ failedCases must be less than",
        r"^\$\.caseResults caseResults must agree",
        SAFE_SEGMENT,
        UNSAFE_TEXT,
    ],
    "POST /api/benchmarks/shadow": [SAFE_SEGMENT, UNSAFE_TEXT],  # memoryIds
    "POST /api/benchmarks/baselines": [
        r"^\$\.benchmarkCount benchmarkCount must match benchmarks\.length",
        SAFE_SEGMENT,
        UNSAFE_TEXT,
        r"^\$\.snapshotId This field may not be blank",  # only whitespace
    ],
    "POST /api/evals/runs": [
        r"^\$\.(suite|script) (no \w+ named|.* is outside the suites directory)",
        r"^\$\.reducer \S+ needs at least \d+ repeats",  # two fields that must agree
        UNSAFE_TEXT,
    ],
    "POST /api/gridworld/batches": [
        r"^\$\.map unknown layout",  # neither a layout nor a text map
        r"^\$\.map_text line \d+: ",
        r"^\$\.seed seed \+ episodes must stay",  # two fields that must agree
    ],
    # GitHub's payloads and the keepalive's state, read field by field.
    "POST /api/prkeepalive/explain": [r"^\$?\.?(payload|state)\b"],
    # A cursor is valid when this API gave it out, which no pattern can say.
    "GET /api/spans": [r"^\?cursor cursor must be a nextCursor this API gave out"],
    "GET /api/evals/runs": [r"^\?after after is not the next of a page of this list"],
}


@schemathesis.check
def only_semantic_refusals(ctx: Any, response: Any, case: Any) -> bool | None:
    """A 400 to schema-valid data names only the semantic problems its
    operation lists in ``SEMANTIC_REFUSALS``."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    if response.status_code != 400:
        return None
    allowed = SEMANTIC_REFUSALS.get(case.operation.label)
    if allowed is None:
        return None  # positive_data_acceptance judges these operations
    error = response.json()["error"]
    problems = [f"{f['path']} {f['message']}" for f in error["fields"]] or [
        error["message"]
    ]
    unlisted = [p for p in problems if not any(re.search(a, p) for a in allowed)]
    if unlisted:
        raise AssertionError(f"schema-valid data refused for {unlisted}")
    return None


CHECKS.update(
    agent=[*CHECKED, *DATA_CHECKS, only_semantic_refusals, checks.ignored_auth],
    staff=[*CHECKED, *DATA_CHECKS, only_semantic_refusals],
)
# Every string the API reads refuses NUL and lone surrogates (the schema's
# description says so for the whole API), so no example carries them.
CONFIG: dict[str, Any] = {
    "generation": {"allow-x00": False, "codec": "utf-8"},
    "operations": [
        {
            "include-name": name,
            "checks": {
                "positive_data_acceptance": {
                    "expected-statuses": [
                        "2xx",
                        "400",
                        "401",
                        "403",
                        "404",
                        "409",
                        "429",
                    ]
                }
            },
        }
        for name in SEMANTIC_REFUSALS
    ],
}


@pytest.fixture
def in_process_app() -> Any:
    """The WSGI app inside the test transaction: as Django's test client does,
    requests must not close the test's database connection."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def identities(settings: Any, api_key: str, staff: Any) -> dict[str, dict[str, Any]]:
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = True
    settings.ALLOWED_HOSTS = ["*"]
    client = Client()
    client.force_login(staff)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {
        "agent": {"headers": {"Authorization": f"Bearer {api_key}"}, "cookies": {}},
        "staff": {
            "headers": {"X-CSRFToken": CSRF_SECRET},
            "cookies": {
                settings.SESSION_COOKIE_NAME: session,
                settings.CSRF_COOKIE_NAME: CSRF_SECRET,
            },
        },
    }


TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


@pytest.fixture
def stored_spans(created_agent: Any) -> dict[str, str]:
    """Spans the API answers: the test agent's model call and the tool call
    under it (one trace), and a harness span of a run. Path values of the
    success cases below (``<span>``, ``<trace>``)."""
    start = datetime(2026, 3, 6, 12, tzinfo=UTC)
    end = start + timedelta(milliseconds=300)
    common: dict[str, Any] = {"started_at": start, "ended_at": end}
    store_spans(
        [
            SpanRecord(
                trace_id=TRACE,
                span_id="a" * 16,
                name="chat",
                source=SOURCE_OTLP,
                operation="chat",
                request_model="gpt-4o-mini",
                usage=TokenUsage(input=10, output=2),
                client_cost_usd=Decimal("0.0001"),
                attributes={"k": "v"},
                events=[{"name": "e"}],
                **common,
            ),
            SpanRecord(
                trace_id=TRACE,
                span_id="b" * 16,
                parent_span_id="a" * 16,
                name="tool",
                source=SOURCE_OTLP,
                tool_name="search",
                **common,
            ),
        ],
        agent_id=created_agent.agent.pk,
    )
    store_spans(
        [
            SpanRecord(
                trace_id="c" * 32,
                span_id="c" * 16,
                name="case",
                source=SOURCE_HARNESS,
                request_model="scripted",
                run_ref="run-1",
                case_ref="calm#1",
                **common,
            )
        ]
    )
    return {"<span>": str(Span.objects.get(span_id="a" * 16).pk), "<trace>": TRACE}


INT64 = range(-(2**63), 2**63)


def within_parser_limits(case: Any) -> bool:
    """Whether every integer in the body fits 64 bits, as the schema's
    description says of every body. The schema states it for each declared
    integer field; a free-form value (``metadata``, a receipt's config, a
    property no field declares) can only say it with an ``anyOf`` whose
    branches schemathesis's negative data mutates into values another branch
    accepts, so examples past it are left out instead."""
    stack = [case.body]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int) and item not in INT64:
            return False
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def load_schema(app: Any) -> Any:
    return schemathesis.openapi.from_wsgi(
        "/api/schema/?format=json", app, config=SchemathesisConfig.from_dict(CONFIG)
    )


def api_operations(app: Any) -> list[Any]:
    return [result.ok() for result in load_schema(app).get_all_operations()]


# Slow by design: EXAMPLES generated requests for every API operation.
def test_every_operation_keeps_its_schema(
    in_process_app: Any,
    identities: dict[str, dict[str, Any]],
    stored_spans: dict[str, str],
) -> None:
    failures: dict[str, str] = {}
    calls: list[int] = []
    operations = api_operations(in_process_app)
    labels = {operation.label for operation in operations}
    assert set(SEMANTIC_REFUSALS) <= labels, set(SEMANTIC_REFUSALS) - labels
    if ONLY:
        operations = [o for o in operations if re.search(ONLY, o.label)]
    for operation, mode in (
        (operation, mode)
        for operation in operations
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    ):
        strategy = operation.as_strategy(generation_mode=mode).filter(
            within_parser_limits
        )

        @given(case=strategy)
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            # The same examples on every run: CI judges the code, not the dice.
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def check(case: Any) -> None:
            for name, identity in identities.items():
                calls.append(1)
                case.call_and_validate(
                    headers=identity["headers"],
                    cookies=identity["cookies"],
                    checks=CHECKS[name],
                )

        try:
            check()
        except (AssertionError, BaseExceptionGroup) as error:
            failures[f"{operation.label} ({mode.value})"] = str(error)[:1500]
    print(f"\nschemathesis: {len(operations)} operations, {len(calls)} requests")
    assert ONLY or len(operations) >= 30
    assert not failures, "\n\n".join(f"{k}: {v}" for k, v in failures.items())


def manifest(benchmark_id: str) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "benchmarkId": benchmark_id,
        "title": "T",
        "cases": [{"id": "c", "prompt": "p"}],
    }


def run_summary(run_id: str) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": "ama",
        "status": "completed",
        "startedAt": "2026-03-06T09:00:00Z",
        "completedAt": "2026-03-06T09:01:00Z",
        "totalCases": 1,
        "passedCases": 1,
        "failedCases": 0,
        "metrics": {"score": 0.5},
        "caseResults": [{"caseId": "c", "passed": True}],
    }


SHADOW = {
    "schemaVersion": 1,
    "traceId": "t1",
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
    "memoryIds": [],
    "durationMs": 1.5,
}

# (method, path, path parameters, body, identity, expected status), in order:
# each success answer of the documented operations, checked against its schema.
SUCCESSES: list[tuple[str, str, dict[str, Any], Any, str, int]] = [
    ("POST", "/api/benchmarks/packs", {}, manifest("ama"), "staff", 201),
    ("POST", "/api/benchmarks/packs", {}, manifest("ama"), "staff", 200),
    ("GET", "/api/benchmarks/packs", {}, None, "staff", 200),
    (
        "GET",
        "/api/benchmarks/packs/{benchmark_id}",
        {"benchmark_id": "ama"},
        None,
        "agent",
        200,
    ),
    ("POST", "/api/benchmarks/runs", {}, run_summary("r1"), "staff", 201),
    ("POST", "/api/benchmarks/runs", {}, run_summary("r1"), "agent", 200),
    ("GET", "/api/benchmarks/runs", {}, None, "staff", 200),
    ("GET", "/api/benchmarks/runs/{run_id}", {"run_id": "r1"}, None, "staff", 200),
    ("POST", "/api/benchmarks/shadow", {}, SHADOW, "staff", 201),
    ("POST", "/api/benchmarks/shadow", {}, {"records": [SHADOW]}, "staff", 200),
    (
        "GET",
        "/api/benchmarks/shadow/{trace_id}",
        {"trace_id": "t1"},
        None,
        "staff",
        200,
    ),
    ("POST", "/api/benchmarks/baselines", {}, {"snapshotId": "main"}, "staff", 201),
    ("GET", "/api/benchmarks/baselines", {}, None, "staff", 200),
    (
        "GET",
        "/api/benchmarks/baselines/{snapshot_id}",
        {"snapshot_id": "main"},
        None,
        "staff",
        200,
    ),
    (
        "POST",
        "/api/cognitive-stream/thoughts",
        {},
        {"content": "I rest."},
        "agent",
        201,
    ),
    (
        "POST",
        "/api/cognitive-stream/thoughts",
        {},
        {"thoughts": [{"content": "One."}, {"content": "Two.", "extra": 1}]},
        "agent",
        201,
    ),
    ("GET", "/api/cognitive-stream/recent", {}, None, "agent", 200),
    ("POST", "/api/cognitive-stream/counters/reset", {}, None, "agent", 200),
    ("GET", "/api/spans", {}, None, "agent", 200),
    ("GET", "/api/spans", {}, None, "staff", 200),
    ("GET", "/api/spans/{id}", {"id": "<span>"}, None, "agent", 200),
    ("GET", "/api/traces/{trace_id}", {"trace_id": "<trace>"}, None, "agent", 200),
    ("GET", "/api/traces/{trace_id}", {"trace_id": "c" * 32}, None, "staff", 200),
]


def test_success_answers_match_their_schema(
    in_process_app: Any,
    identities: dict[str, dict[str, Any]],
    stored_spans: dict[str, str],
) -> None:
    loaded = load_schema(in_process_app)
    for method, path, path_parameters, body, who, expected in SUCCESSES:
        operation = loaded[path][method]
        values = {k: stored_spans.get(v, v) for k, v in path_parameters.items()}
        kwargs: dict[str, Any] = {"path_parameters": values}
        if body is not None:
            kwargs.update(body=body, media_type="application/json")
        case = operation.Case(**kwargs)
        response = case.call_and_validate(
            headers=identities[who]["headers"],
            cookies=identities[who]["cookies"],
            checks=CHECKED,
        )
        assert response.status_code == expected, (method, path, response.text[:300])
