"""Who may call what: every REST operation and every page, for every actor.

The operations come from the OpenAPI schema and the pages from the URL
resolver, so an endpoint added tomorrow is in the matrix the day it lands.
Actors: anonymous, a session for the owner, a member, a stranger and staff;
a key of each scope alone; the default (stream-only) key of another owner.
The scope a key needs is ``core.scopes.required_scope``; what a key may not
do answers 403, what nobody anonymous may do 401/403, and no actor ever gets
a 500. OTLP ingestion (``POST /v1/traces``) is not in the OpenAPI schema (it
speaks the OTLP protocol: its refusals are ``google.rpc.Status`` bodies), so
its row of the matrix is written out below; so is who reads which spans.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from core.scopes import (
    BASELINES_WRITE,
    BENCHMARKS_READ,
    BENCHMARKS_REPLACE,
    BENCHMARKS_WRITE,
    REVIEWS,
    SCOPES,
    SEARCH,
    STREAM,
    TRACES,
    key_may,
    required_scope,
)
from evals.models import BaselineSnapshot
from stream.models import Agent, Task
from tests.builders import agent_make, benchmark_make, key_client

pytestmark = pytest.mark.django_db

# Operations that authenticate by a signature instead of a login or a key.
SIGNED = {("POST", "/api/prkeepalive/github/webhook")}
# Pages anyone may open.
PUBLIC_PAGES = {"/accounts/login/", "/health/", "/healthz", "/favicon.ico"}
# /v1/ is OTLP ingestion: an API for exporters, not a page.
PAGE_SKIP_PREFIXES = ("/admin/", "/static/", "/accounts/logout/", "/v1/")


def operations() -> list[tuple[str, str]]:
    """(METHOD, path template) of every operation in the OpenAPI schema."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = [
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    ]
    assert len(found) > 30, found
    return sorted(found)


def page_patterns() -> list[str]:
    """Route templates of every HTML page (everything not under /api/)."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                yield prefix + str(entry.pattern)

    routes = {"/" + r for r in walk(get_resolver().url_patterns, "")}
    return sorted(
        r
        for r in routes
        if not r.startswith("/api/")
        and not r.startswith(PAGE_SKIP_PREFIXES)
        and "(?P" not in r
        and "^" not in r
    )


OPERATIONS = operations()


@pytest.fixture
def world(owner: Any, member: Any, stranger: Any, staff: Any) -> dict[str, Any]:
    """An agent of the owner (the member belongs to it), one of a stranger,
    a task of the owner's agent, a pack and a baseline."""
    created = agent_make(name="mine", owner=owner, scopes=SCOPES)
    mine = created.agent
    mine.members.add(member)
    theirs = agent_make(name="theirs", owner=stranger)
    now = timezone.now()
    task = Task.objects.create(
        agent=mine, title="t", action="collect", created_at=now, updated_at=now
    )
    benchmark_make("pack-1", kind="pack", title="p")
    BaselineSnapshot.objects.create(
        snapshot_id="main", created_at=timezone.now(), document={}
    )
    keys = {
        scope: agent_make(
            name=f"key-{scope.replace(':', '-')}", owner=owner, scopes=[scope]
        ).api_key
        for scope in SCOPES
    }
    return {
        "agent": mine,
        "agent_key": created.api_key,
        "task": task,
        "other_key": theirs.api_key,
        "keys": keys,
        "values": {
            "name": "mine",
            "pk": task.pk,
            "run_id": "run-none",
            "case_id": "case-none",
            "suite_id": "smoke",
            "benchmark_id": "pack-1",
            "snapshot_id": "main",
            "trace_id": "trace-none",
            "owner": "octo",
            "index": "0",
            "number": "1",
            "path": "summary.json",
        },
    }


def fill(template: str, values: dict[str, Any]) -> str:
    """A concrete path for an OpenAPI ``{x}`` or Django ``<conv:x>`` route."""

    def value(name: str) -> str:
        return str(
            values.get(name, "1" if name.endswith(("pk", "id", "number")) else "x")
        )

    def route_value(match: re.Match[str]) -> str:
        converter, name = match.group(1), match.group(2)
        if converter == "int" and name not in values:
            return "1"  # an int route never matches the "x" fallback
        return value(name)

    path = re.sub(r"\{(\w+)\}", lambda m: value(m.group(1)), template)
    return re.sub(r"<(?:(\w+):)?(\w+)>", route_value, path)


def call(client: Any, method: str, path: str) -> Any:
    return (
        getattr(client, method.lower())(path, {}, format="json")
        if isinstance(client, APIClient)
        else getattr(client, method.lower())(path)
    )


def session(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


# --- REST operations -------------------------------------------------------


@pytest.mark.parametrize(("method", "template"), OPERATIONS)
def test_anonymous_callers_are_refused(
    world: dict[str, Any], method: str, template: str
) -> None:
    response = call(APIClient(), method, fill(template, world["values"]))

    if (method, template) in SIGNED:
        assert 400 <= response.status_code < 500
        return
    assert response.status_code in (401, 403), (method, template, response.content)


@pytest.mark.parametrize(("method", "template"), OPERATIONS)
def test_each_key_scope_reaches_exactly_its_operations(
    world: dict[str, Any], method: str, template: str
) -> None:
    if (method, template) in SIGNED:
        pytest.skip("authenticated by its signature, not by a key")
    path = fill(template, world["values"])
    needed = required_scope(method, path)
    for scope, key in world["keys"].items():
        response = call(key_client(key), method, path)
        assert response.status_code < 500, (scope, method, path, response.content)
        if key_may([scope], needed):
            assert response.status_code not in (401, 403), (
                scope,
                method,
                path,
                response.content,
            )
        else:
            assert response.status_code == 403, (scope, method, path)
            assert response.json()["error"]["code"] == "permission_denied"


@pytest.mark.parametrize(("method", "template"), OPERATIONS)
def test_sessions_never_get_a_server_error(
    world: dict[str, Any],
    owner: Any,
    member: Any,
    stranger: Any,
    staff: Any,
    method: str,
    template: str,
) -> None:
    path = fill(template, world["values"])
    for user in (owner, member, stranger, staff):
        response = call(session(user), method, path)
        assert response.status_code < 500, (user, method, path, response.content)


def test_a_new_key_does_stream_work_only(world: dict[str, Any]) -> None:
    client = key_client(world["other_key"])

    assert client.get("/api/cognitive-stream/recent").status_code == 200
    assert client.get("/api/benchmarks/packs").status_code == 403
    assert client.post("/api/benchmarks/runs", {}, format="json").status_code == 403
    refused = client.post(
        "/api/benchmarks/baselines", {"snapshotId": "main"}, format="json"
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == (
        "This API key may not POST /api/benchmarks/baselines: it needs the "
        "'baselines:write' scope."
    )
    assert Agent.objects.get(name="theirs").api_key.scopes == [STREAM]


def test_another_owners_key_cannot_reach_this_agents_task(
    world: dict[str, Any],
) -> None:
    response = key_client(world["other_key"]).get(f"/api/tasks/{world['task'].pk}")

    assert response.status_code == 404


def test_scopes_imply_what_they_need() -> None:
    assert key_may([BENCHMARKS_WRITE], BENCHMARKS_READ)
    assert key_may([BENCHMARKS_REPLACE], BENCHMARKS_WRITE)
    assert key_may([BASELINES_WRITE], BENCHMARKS_READ)
    assert not key_may([BASELINES_WRITE], BENCHMARKS_WRITE)
    assert not key_may([STREAM], BENCHMARKS_READ)
    assert not key_may(SCOPES, None)
    assert required_scope("POST", "/api/benchmarks/baselines") == BASELINES_WRITE
    assert required_scope("POST", "/v1/traces") == TRACES
    assert required_scope("GET", "/api/spans") == TRACES
    assert required_scope("GET", f"/api/traces/{'a' * 32}") == TRACES
    assert not key_may([s for s in SCOPES if s != TRACES], TRACES)
    assert required_scope("GET", "/api/somewhere-new/") is None


# --- pages -----------------------------------------------------------------


PAGES = page_patterns()


@pytest.mark.parametrize("template", PAGES)
def test_pages_need_a_login_and_never_fail(
    world: dict[str, Any],
    owner: Any,
    member: Any,
    stranger: Any,
    staff: Any,
    template: str,
) -> None:
    path = fill(template, world["values"])
    anonymous = Client().get(path)
    if path in PUBLIC_PAGES:
        assert anonymous.status_code in (200, 503)
    else:
        assert anonymous.status_code == 302, (path, anonymous.status_code)
        assert anonymous["Location"].startswith("/accounts/login/")
    for user in (owner, member, stranger, staff):
        client = Client()
        client.force_login(user)
        response = client.get(path)
        assert response.status_code < 500, (user, path)


def test_a_stranger_does_not_see_an_agents_stream(
    world: dict[str, Any], owner: Any, member: Any, stranger: Any, staff: Any
) -> None:
    seen = {}
    for user in (owner, member, stranger, staff):
        client = Client()
        client.force_login(user)
        seen[user.username] = client.get("/stream/mine/").status_code

    assert seen == {
        owner.username: 200,
        member.username: 200,
        stranger.username: 404,
        staff.username: 200,
    }


# --- OTLP ingestion and spans ------------------------------------------------

# An empty export: every caller that may send spans gets 200.
EMPTY_EXPORT = b'{"resourceSpans": []}'
TRACE = "0af7651916cd43dd8448eb211c80319c"
# google.rpc.Code of the OTLP refusals.
RPC_UNAUTHENTICATED = 16
RPC_PERMISSION_DENIED = 7


def otlp_post(client: Any) -> Any:
    return client.generic(
        "POST", "/v1/traces", EMPTY_EXPORT, content_type="application/json"
    )


def test_otlp_ingestion_takes_a_key_with_the_traces_scope_only(
    world: dict[str, Any], owner: Any, member: Any, stranger: Any, staff: Any
) -> None:
    for scope, key in world["keys"].items():
        response = otlp_post(key_client(key))
        if scope == TRACES:
            assert response.status_code == 200, response.content
            continue
        assert response.status_code == 403, (scope, response.content)
        assert response.json() == {
            "code": RPC_PERMISSION_DENIED,
            "message": "This API key may not POST /v1/traces: it needs the "
            "'traces' scope.",
        }
    assert otlp_post(key_client(world["other_key"])).status_code == 403
    anonymous = otlp_post(APIClient())
    assert anonymous.status_code == 401
    assert anonymous.json()["code"] == RPC_UNAUTHENTICATED
    # People do not send spans: a session is no key.
    for user in (owner, member, stranger, staff):
        assert otlp_post(session(user)).status_code == 401, user


def test_otlp_ingestion_answers_other_methods_without_a_server_error(
    world: dict[str, Any],
) -> None:
    client = key_client(world["keys"][TRACES])
    for method in ("get", "put", "delete"):
        assert getattr(client, method)("/v1/traces").status_code == 405, method


@pytest.fixture
def spans(world: dict[str, Any], stranger: Any) -> dict[str, int]:
    """A span of the owner's agent, one of the stranger's agent (same
    trace), a harness span of a run and a harness span of no run."""
    from traces.core.records import SOURCE_HARNESS, SOURCE_OTLP, SpanRecord
    from traces.models import Span
    from traces.services.spans import store_spans

    theirs = Agent.objects.get(name="theirs")
    now = timezone.now()

    def span(span_id: str, **kw: Any) -> SpanRecord:
        kw.setdefault("source", SOURCE_OTLP)
        return SpanRecord(
            trace_id=TRACE,
            span_id=span_id * 16,
            name=span_id,
            started_at=now,
            ended_at=now,
            **kw,
        )

    store_spans([span("a")], agent_id=world["agent"].pk)
    store_spans([span("b")], agent_id=theirs.pk)
    store_spans(
        [
            span("c", source=SOURCE_HARNESS, run_ref="run-1"),
            span("d", source=SOURCE_HARNESS),
        ]
    )
    return {s.name: s.pk for s in Span.objects.all()}


def test_nobody_reads_another_owners_spans(
    world: dict[str, Any],
    spans: dict[str, int],
    owner: Any,
    member: Any,
    stranger: Any,
    staff: Any,
) -> None:
    theirs_key = agent_make(
        name="theirs-traces", owner=stranger, scopes=[TRACES]
    ).api_key
    callers = {
        "owner": session(owner),
        "member": session(member),
        "stranger": session(stranger),
        "staff": session(staff),
        "the agent's key": key_client(world["agent_key"]),
        "another agent's key": key_client(world["keys"][TRACES]),
        "the stranger's key": key_client(theirs_key),
    }
    seen: dict[str, tuple[list[str], list[str], list[str]]] = {}
    for who, client in callers.items():
        listed = [s["name"] for s in client.get("/api/spans").json()["results"]]
        fetched = [
            name
            for name, pk in sorted(spans.items())
            if client.get(f"/api/spans/{pk}").status_code == 200
        ]
        trace = client.get(f"/api/traces/{TRACE}")
        in_trace = (
            [s["name"] for s in trace.json()["spans"]]
            if trace.status_code == 200
            else []
        )
        seen[who] = (sorted(listed), fetched, sorted(in_trace))

    assert seen == {
        "owner": (["a", "c", "d"], ["a", "c", "d"], ["a", "c", "d"]),
        "member": (["a", "c", "d"], ["a", "c", "d"], ["a", "c", "d"]),
        "stranger": (["b", "c", "d"], ["b", "c", "d"], ["b", "c", "d"]),
        "staff": (["a", "b", "c", "d"], ["a", "b", "c", "d"], ["a", "b", "c", "d"]),
        # A key reads its own agent's spans only, never harness spans, even
        # a key of the same owner.
        "the agent's key": (["a"], ["a"], ["a"]),
        "another agent's key": ([], [], []),
        "the stranger's key": ([], [], []),
    }


# --- review queues, scores and search -----------------------------------------


def test_a_reviewer_sees_only_the_queues_they_are_a_member_of(
    world: dict[str, Any], owner: Any, member: Any, stranger: Any, staff: Any
) -> None:
    from reviews.services.configs import config_create
    from reviews.services.queues import queue_create

    config = config_create(name="grounded", kind="boolean")
    queue = queue_create(name="q", configs=[config], members=[owner])
    staffed = queue_create(name="s", configs=[config], members=[staff])
    seen = {}
    for user in (owner, member, stranger, staff):
        client = Client()
        client.force_login(user)
        seen[user.username] = tuple(
            client.get(path).status_code
            for path in (
                f"/reviews/queues/{queue.pk}/",
                f"/reviews/queues/{queue.pk}/review/",
                f"/reviews/queues/{staffed.pk}/review/",
            )
        )

    # The agent's member is no member of the queue: to them it does not
    # exist. Staff see every queue's page but review only where they are
    # members.
    assert seen == {
        owner.username: (200, 200, 404),
        member.username: (404, 404, 404),
        stranger.username: (404, 404, 404),
        staff.username: (200, 404, 200),
    }


def test_only_a_key_with_the_reviews_scope_posts_scores(
    world: dict[str, Any],
) -> None:
    from reviews.models import Score
    from reviews.services.configs import config_create
    from tests.builders import thought_actionable

    config_create(name="grounded", kind="boolean")
    own_thought = thought_actionable(Agent.objects.get(name="key-reviews"))
    stream_thought = thought_actionable(Agent.objects.get(name="key-stream"))

    def score(key: str, thought: Any) -> int:
        body = {"config": "grounded", "kind": "thought", "ref": str(thought.pk)}
        answer = key_client(key).post(
            "/api/reviews/scores", {**body, "value": True}, format="json"
        )
        return answer.status_code

    refused = score(world["keys"][STREAM], stream_thought)
    assert refused == 403
    assert not Score.objects.exists()
    assert score(world["keys"][REVIEWS], own_thought) == 201
    assert Score.objects.get().ref == str(own_thought.pk)


def test_nobody_reads_another_owners_agents_through_search(
    world: dict[str, Any], owner: Any, member: Any, stranger: Any, staff: Any
) -> None:
    from search.services.indexer import index_pass
    from tests.search.search_support import thought_make

    mine = thought_make(world["agent"], "a creeper by the mine", minutes=1)
    theirs = thought_make(
        Agent.objects.get(name="theirs"), "a creeper by their base", minutes=2
    )
    index_pass()
    callers = {
        "owner": session(owner),
        "member": session(member),
        "stranger": session(stranger),
        "staff": session(staff),
        "the agent's key": key_client(world["agent_key"]),
        "another agent's search key": key_client(world["keys"][SEARCH]),
    }
    links = {
        mine.pk: f"/stream/mine/thoughts/{mine.pk}/",
        theirs.pk: f"/stream/theirs/thoughts/{theirs.pk}/",
    }
    seen = {}
    for who, client in callers.items():
        answer = client.get("/api/search", {"q": "creeper"})
        assert answer.status_code == 200, (who, answer.content)
        found = sorted(int(hit["ref"]) for hit in answer.json()["results"])
        on_page = None
        if not who.endswith("key"):
            page = client.get("/search/", {"q": "creeper"})
            on_page = sorted(pk for pk, url in links.items() if url in page.text)
        seen[who] = (found, on_page)

    both = sorted([mine.pk, theirs.pk])
    assert seen == {
        "owner": ([mine.pk], [mine.pk]),
        "member": ([mine.pk], [mine.pk]),
        "stranger": ([theirs.pk], [theirs.pk]),
        "staff": (both, both),
        "the agent's key": ([mine.pk], None),
        "another agent's search key": ([], None),
    }
