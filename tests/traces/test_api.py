"""The spans and traces REST API: exact answers, filters, keyset paging, the
trace's waterfall and totals, and who reads which spans."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.urls import NoReverseMatch, reverse
from rest_framework.test import APIClient

from core.scopes import SCOPES, STREAM, TRACES
from tests.builders import agent_make, key_client
from traces.api.filters import cursor_decode, cursor_encode, parse_time
from traces.api.outputs import link
from traces.core.records import (
    SOURCE_HARNESS,
    SOURCE_KEEPALIVE,
    SOURCE_OTLP,
    SpanRecord,
    TokenUsage,
)
from traces.models import Span
from traces.services.spans import store_spans

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 6, 12, 0, tzinfo=UTC)
TRACE = "0af7651916cd43dd8448eb211c80319c"
OTHER_TRACE = "1" * 32


def record(span_id: str, *, trace_id: str = TRACE, at: float = 0.0, **kw: Any) -> Any:
    """A span starting ``at`` seconds after T0 and lasting 0.5 s."""
    start = T0 + timedelta(seconds=at)
    fields: dict[str, Any] = {
        "name": f"span {span_id}",
        "source": SOURCE_OTLP,
        "started_at": start,
        "ended_at": start + timedelta(milliseconds=500),
    }
    fields.update(kw)
    return SpanRecord(trace_id=trace_id, span_id=span_id.rjust(16, "0"), **fields)


def stored(*records: Any, agent: Any = None) -> list[Span]:
    store_spans(list(records), agent_id=None if agent is None else agent.pk)
    ids = [r.span_id for r in records]
    return sorted(
        Span.objects.filter(span_id__in=ids), key=lambda s: ids.index(s.span_id)
    )


def session(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


@pytest.fixture
def mine(owner: Any, member: Any) -> Any:
    created = agent_make(name="mine", owner=owner, scopes=[TRACES])
    created.agent.members.add(member)
    return created


@pytest.fixture
def theirs(stranger: Any) -> Any:
    return agent_make(name="theirs", owner=stranger, scopes=[TRACES])


CHAT = {
    "operation": "chat",
    "provider": "openai",
    "request_model": "gpt-4o-mini",
    "response_model": "gpt-4o-mini-2024-07-18",
    "request_params": {"temperature": 0.2, "max_tokens": 256, "seed": 7},
    "usage": TokenUsage(input=1200, output=300, cached_input=200, reasoning=0),
    "client_cost_usd": Decimal("0.000540"),
    "latency_ms": 812.5,
    "ttft_ms": 120.0,
    "finish_reason": "stop",
    "retries": 0,
    "status": "ok",
    "conversation_id": "conv-1",
    "thought_ref": 41,
}


# --- one span ----------------------------------------------------------------


def test_a_span_answers_every_field_in_camel_case(mine: Any, staff: Any) -> None:
    (span,) = stored(
        record(
            "a1",
            **CHAT,
            attributes={"gen_ai.agent.name": "mine"},
            events=[{"name": "gen_ai.choice", "attributes": {"index": 0}}],
        ),
        agent=mine.agent,
    )

    body = session(staff).get(f"/api/spans/{span.pk}").json()

    base = "http://testserver"
    assert body == {
        "id": span.pk,
        "traceId": TRACE,
        "spanId": "00000000000000a1",
        "parentSpanId": None,
        "name": "span a1",
        "kind": "internal",
        "source": "otlp",
        "agent": "mine",
        "operation": "chat",
        "provider": "openai",
        "requestModel": "gpt-4o-mini",
        "responseModel": "gpt-4o-mini-2024-07-18",
        "params": {"temperature": 0.2, "max_tokens": 256, "seed": 7},
        "tokens": {
            "input": 1200,
            "output": 300,
            "cachedInput": 200,
            "cacheWrite": None,
            "reasoning": 0,
        },
        "cost": "0.00054",
        "costSource": "client",
        "priceVersion": body["priceVersion"],
        "startedAt": "2026-03-06T12:00:00+00:00",
        "endedAt": "2026-03-06T12:00:00.500000+00:00",
        "latencyMs": 812.5,
        "ttftMs": 120.0,
        "finishReason": "stop",
        "retries": 0,
        "status": "ok",
        "error": None,
        "conversationId": "conv-1",
        "toolName": None,
        "thoughtId": 41,
        "runId": None,
        "caseId": None,
        "links": {
            "self": f"{base}/api/spans/{span.pk}",
            "trace": f"{base}/api/traces/{TRACE}",
            "tracePage": f"{base}/traces/{TRACE}/",
            "thought": f"{base}/stream/mine/thoughts/41/",
            "run": None,
            "case": None,
        },
        "attributes": {"gen_ai.agent.name": "mine"},
        "events": [{"name": "gen_ai.choice", "attributes": {"index": 0}}],
    }
    assert body["priceVersion"] is None or isinstance(body["priceVersion"], str)


def test_unreported_tokens_are_null_and_an_unpriced_call_has_no_cost(
    staff: Any,
) -> None:
    (span,) = stored(
        record(
            "b1",
            source=SOURCE_HARNESS,
            request_model="no-such-model-anywhere",
            run_ref="20260306120000-abcdef",
            case_ref="calm#2",
        )
    )

    body = session(staff).get(f"/api/spans/{span.pk}").json()

    assert body["tokens"] == {
        "input": None,
        "output": None,
        "cachedInput": None,
        "cacheWrite": None,
        "reasoning": None,
    }
    assert (body["cost"], body["costSource"]) == (None, "unknown")
    assert body["links"]["run"] == (
        "http://testserver/evals/runs/20260306120000-abcdef/"
    )
    assert body["links"]["case"] == (
        "http://testserver/evals/runs/20260306120000-abcdef/scenarios/calm%232/"
    )


def test_a_list_item_leaves_out_attributes_and_events(staff: Any) -> None:
    stored(record("c1", attributes={"x": 1}))

    (item,) = session(staff).get("/api/spans").json()["results"]

    assert "attributes" not in item and "events" not in item


@pytest.mark.parametrize("pk", ["999999", str(2**63 - 1), str(2**64)])
def test_an_unknown_span_is_404(staff: Any, pk: str) -> None:
    response = session(staff).get(f"/api/spans/{pk}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "case_id",
    [
        "calm",
        "calm#2",
        "a b",
        "50%",
        "x?y=1",
        "é–ü",
        "a:b@c",
        "~!$&'()*+,;=",
        "a/b",
        "",
    ],
)
def test_a_link_is_the_path_reverse_writes(case_id: str) -> None:
    try:
        expected = reverse("evals:scenario-detail", args=["run-1", case_id])
    except NoReverseMatch:
        expected = None

    assert link("evals:scenario-detail", "run-1", case_id) == expected


def test_a_negative_thought_id_has_no_link() -> None:
    assert link("stream:thought-detail", "mine", 41) == "/stream/mine/thoughts/41/"
    assert link("stream:thought-detail", "mine", -41) is None


def test_a_trace_page_link_needs_a_trace_id() -> None:
    assert link("traces:trace-detail", TRACE, kinds=("trace",)) == f"/traces/{TRACE}/"
    assert link("traces:trace-detail", "x" * 32, kinds=("trace",)) is None


# --- the list: filters -------------------------------------------------------


def ids_of(response: Any) -> list[str]:
    assert response.status_code == 200, response.content
    return [item["spanId"].lstrip("0") for item in response.json()["results"]]


def test_filters_narrow_the_list(mine: Any, staff: Any) -> None:
    stored(record("1", at=1, **CHAT), agent=mine.agent)
    stored(
        record(
            "2",
            at=2,
            trace_id=OTHER_TRACE,
            source=SOURCE_HARNESS,
            request_model="llama-3",
            run_ref="run-a",
            case_ref="calm",
            status="error",
            error="boom",
        )
    )
    stored(record("3", at=3, source=SOURCE_KEEPALIVE), agent=mine.agent)
    client = session(staff)

    assert ids_of(client.get("/api/spans")) == ["3", "2", "1"]
    assert ids_of(client.get("/api/spans?agent=mine")) == ["3", "1"]
    assert ids_of(client.get("/api/spans?run=run-a&case=calm")) == ["2"]
    assert ids_of(client.get("/api/spans?thought=41")) == ["1"]
    assert ids_of(client.get("/api/spans?model=gpt-4o-mini-2024-07-18")) == ["1"]
    assert ids_of(client.get("/api/spans?model=llama-3")) == ["2"]
    assert ids_of(client.get("/api/spans?source=keepalive")) == ["3"]
    assert ids_of(client.get("/api/spans?status=error")) == ["2"]
    assert ids_of(client.get(f"/api/spans?trace={OTHER_TRACE.upper()}")) == ["2"]
    since = "2026-03-06T12:00:02Z"
    assert ids_of(client.get(f"/api/spans?since={since}")) == ["3", "2"]
    assert ids_of(client.get(f"/api/spans?until={since}")) == ["1"]
    assert ids_of(client.get("/api/spans?since=2026-03-06T13:00:02%2B01:00")) == [
        "3",
        "2",
    ]
    assert ids_of(client.get("/api/spans?agent=nobody")) == []


def test_empty_filter_values_are_absent(staff: Any) -> None:
    stored(record("1"))
    empty = "agent=&run=&case=&thought=&model=&source=&status=&since=&until="

    assert ids_of(session(staff).get(f"/api/spans?{empty}&trace=&limit=&cursor=")) == [
        "1"
    ]


def test_every_bad_filter_is_named_with_its_reason(staff: Any) -> None:
    query = (
        "thought=-1&source=mail&status=fine&since=yesterday&until=2026-03-06T12:00"
        f"&trace=xyz&limit=501&cursor=bm90IGEgY3Vyc29y&run={'r' * 201}"
    )

    response = session(staff).get(f"/api/spans?{query}")

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid",
        "message": "Invalid input: 9 problems.",
        "fields": [
            {"path": "?run", "message": "run must be at most 200 characters."},
            {
                "path": "?thought",
                "message": "thought must be a thought id (a positive integer).",
            },
            {
                "path": "?source",
                "message": "source must be one of harness, keepalive, otlp.",
            },
            {"path": "?status", "message": "status must be one of unset, ok, error."},
            {
                "path": "?since",
                "message": "since must be an RFC 3339 time with a zone "
                "(2026-03-06T12:00:00Z).",
            },
            {
                "path": "?until",
                "message": "until must be an RFC 3339 time with a zone "
                "(2026-03-06T12:00:00Z).",
            },
            {"path": "?trace", "message": "trace must be a trace id: 32 hex digits."},
            {"path": "?limit", "message": "limit must be between 1 and 500."},
            {
                "path": "?cursor",
                "message": "cursor must be a nextCursor this API gave out.",
            },
        ],
    }


@pytest.mark.parametrize("limit", ["0", "x", "1.5"])
def test_a_limit_outside_1_to_500_is_refused(staff: Any, limit: str) -> None:
    response = session(staff).get(f"/api/spans?limit={limit}")

    assert response.status_code == 400
    (problem,) = response.json()["error"]["fields"]
    assert problem["path"] == "?limit"


# --- the list: keyset paging -------------------------------------------------


def test_pages_follow_the_cursor_newest_first_without_gaps_or_repeats(
    staff: Any,
) -> None:
    # Two spans share a start: the id breaks the tie.
    stored(*[record(str(n), at=n // 2) for n in range(1, 8)])
    client = session(staff)
    seen: list[str] = []
    url = "/api/spans?limit=3"
    pages = 0
    while url:
        body = client.get(url).json()
        seen += [item["spanId"].lstrip("0") for item in body["results"]]
        pages += 1
        url = body["nextCursor"] and f"/api/spans?limit=3&cursor={body['nextCursor']}"

    assert pages == 3
    assert seen == ["7", "6", "5", "4", "3", "2", "1"]


def test_the_last_page_has_no_next_cursor(staff: Any) -> None:
    stored(record("1"), record("2", at=1))

    body = session(staff).get("/api/spans?limit=2").json()

    assert body["nextCursor"] is None


def test_a_cursor_holds_the_last_time_and_id() -> None:
    at = datetime(2026, 3, 6, 12, 0, 0, 123456, tzinfo=UTC)

    assert cursor_decode(cursor_encode(at, 42)) == (at, 42)
    for bad in ("", "!!!", cursor_encode(at, 42)[:-3], "MjAyNnwx"):
        with pytest.raises(ValueError):  # noqa: PT011 (the message is the input)
            cursor_decode(bad)


def test_times_are_read_with_their_zone_and_clamped_to_the_calendar() -> None:
    assert parse_time("2026-03-06t13:00:00+01:00") == datetime(
        2026, 3, 6, 12, tzinfo=UTC
    )
    assert parse_time("0001-01-01T00:00:00+01:00").year == 1
    assert parse_time("9999-12-31T23:59:59-01:00").year == 9999
    with pytest.raises(ValueError, match="no time zone"):
        parse_time("2026-03-06T12:00:00")


# --- a trace -----------------------------------------------------------------


def test_a_trace_lists_its_spans_as_a_waterfall_with_totals(staff: Any) -> None:
    stored(
        record("a", name="agent step", operation="invoke_agent"),
        record(
            "b",
            at=0.1,
            parent_span_id="a".rjust(16, "0"),
            request_model="gpt-4o-mini",
            usage=TokenUsage(input=100, output=20),
            client_cost_usd=Decimal("0.01"),
        ),
        record(
            "d",
            at=0.3,
            parent_span_id="a".rjust(16, "0"),
            request_model="mystery-model",
            usage=TokenUsage(input=50),
            status="error",
        ),
        record("c", at=0.2, parent_span_id="b".rjust(16, "0"), tool_name="search"),
        record("e", at=0.05, parent_span_id="f".rjust(16, "0")),
    )
    stored(record("z", trace_id=OTHER_TRACE))

    response = session(staff).get(f"/api/traces/{TRACE}")

    assert response.status_code == 200
    body = response.json()
    assert [(s["spanId"].lstrip("0"), s["depth"]) for s in body["spans"]] == [
        ("a", 0),
        ("b", 1),
        ("c", 2),
        ("d", 1),
        ("e", 0),  # its parent was never sent
    ]
    assert [s["offsetMs"] for s in body["spans"]] == [0.0, 100.0, 200.0, 300.0, 50.0]
    assert (body["traceId"], body["truncated"]) == (TRACE, False)
    assert (body["startedAt"], body["endedAt"]) == (
        "2026-03-06T12:00:00+00:00",
        "2026-03-06T12:00:00.800000+00:00",
    )
    assert body["totals"] == {
        "spans": 5,
        "modelCalls": 2,
        "errors": 1,
        "tokens": {
            "input": 150,
            "output": 20,
            "cachedInput": None,
            "cacheWrite": None,
            "reasoning": None,
        },
        "cost": "0.01",
        "unpricedCalls": 1,
        "durationMs": 800.0,
    }


def test_a_trace_with_no_priced_call_has_no_cost(staff: Any) -> None:
    stored(record("a", tool_name="search"))

    totals = session(staff).get(f"/api/traces/{TRACE}").json()["totals"]

    assert (totals["cost"], totals["unpricedCalls"], totals["modelCalls"]) == (
        None,
        0,
        0,
    )


def test_a_cycle_of_parents_still_lists_every_span(staff: Any) -> None:
    stored(
        record("a", parent_span_id="b".rjust(16, "0")),
        record("b", at=1, parent_span_id="a".rjust(16, "0")),
    )

    body = session(staff).get(f"/api/traces/{TRACE}").json()

    assert sorted(s["spanId"][-1] for s in body["spans"]) == ["a", "b"]


def test_an_unknown_trace_is_404_and_a_malformed_id_400(staff: Any) -> None:
    client = session(staff)

    unknown = client.get(f"/api/traces/{'f' * 32}")
    malformed = client.get("/api/traces/not-a-trace")

    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "not_found"
    assert malformed.status_code == 400
    assert malformed.json()["error"]["fields"] == [
        {"path": "?trace_id", "message": "the trace id must be 32 hex digits."}
    ]


# --- who reads what ------------------------------------------------------------


@pytest.fixture
def world(mine: Any, theirs: Any) -> dict[str, Span]:
    """A span of each agent, a harness span of a run and one of no run."""
    (own,) = stored(record("1", at=1), agent=mine.agent)
    (other,) = stored(record("2", at=2, trace_id=OTHER_TRACE), agent=theirs.agent)
    (run,) = stored(record("3", at=3, source=SOURCE_HARNESS, run_ref="run-a"))
    (loose,) = stored(record("4", at=4, source=SOURCE_HARNESS))
    return {"own": own, "other": other, "run": run, "loose": loose}


def test_each_caller_lists_only_what_it_may_read(
    world: dict[str, Span],
    mine: Any,
    theirs: Any,
    owner: Any,
    member: Any,
    stranger: Any,
    staff: Any,
) -> None:
    seen = {
        "staff": ids_of(session(staff).get("/api/spans")),
        "owner": ids_of(session(owner).get("/api/spans")),
        "member": ids_of(session(member).get("/api/spans")),
        "stranger": ids_of(session(stranger).get("/api/spans")),
        "my key": ids_of(key_client(mine.api_key).get("/api/spans")),
        "their key": ids_of(key_client(theirs.api_key).get("/api/spans")),
    }

    assert seen == {
        "staff": ["4", "3", "2", "1"],
        "owner": ["4", "3", "1"],
        "member": ["4", "3", "1"],
        "stranger": ["4", "3", "2"],
        "my key": ["1"],
        "their key": ["2"],
    }


def test_another_owners_span_and_trace_answer_404(
    world: dict[str, Span], mine: Any, stranger: Any
) -> None:
    other = world["other"]
    key = key_client(mine.api_key)

    assert key.get(f"/api/spans/{other.pk}").status_code == 404
    assert key.get(f"/api/traces/{OTHER_TRACE}").status_code == 404
    assert key.get(f"/api/spans/{world['run'].pk}").status_code == 404
    assert session(stranger).get(f"/api/spans/{world['own'].pk}").status_code == 404
    assert key.get(f"/api/spans?trace={OTHER_TRACE}").json()["results"] == []


def test_a_key_without_the_traces_scope_is_refused(
    world: dict[str, Span], owner: Any
) -> None:
    key = agent_make(name="streamer", owner=owner, scopes=[STREAM]).api_key
    wide = agent_make(name="wide", owner=owner, scopes=SCOPES).api_key

    for path in ("/api/spans", f"/api/spans/{world['own'].pk}", f"/api/traces/{TRACE}"):
        refused = key_client(key).get(path)
        assert refused.status_code == 403, path
        assert refused.json()["error"]["message"] == (
            f"This API key may not GET {path}: it needs the 'traces' scope."
        )
        # A key of every scope reads only its own agent's spans (none here).
        assert key_client(wide).get(path).status_code in (200, 404)
    assert key_client(wide).get("/api/spans").json()["results"] == []


def test_anonymous_callers_are_refused(world: dict[str, Span]) -> None:
    for path in ("/api/spans", f"/api/spans/{world['own'].pk}", f"/api/traces/{TRACE}"):
        assert APIClient().get(path).status_code in (401, 403), path
