from __future__ import annotations

from typing import Any

import pytest

from stream.selectors_thoughts import thought_ids_owned
from tests.builders import agent_make, thought_actionable
from tests.traces.otlp_support import (
    CHAT_ATTRIBUTES,
    gzipped,
    json_body,
    json_span,
    proto_body,
    proto_span,
    span_ids,
)
from traces.core.otlp_decode import BodyTooLarge, Undecodable
from traces.models import Span
from traces.services.ingest import IngestResult, otlp_ingest

pytestmark = pytest.mark.django_db


def ingest(body: bytes, agent: Any, **kwargs: Any) -> IngestResult:
    kwargs.setdefault("encoding", "protobuf")
    return otlp_ingest(body=body, agent_id=agent.pk, **kwargs)


def test_an_export_is_stored_under_the_sending_agent(agent: Any) -> None:
    spans = [proto_span(span_id=s) for s in span_ids(3)]
    result = ingest(proto_body(spans), agent)
    assert result == IngestResult(
        stored=3, duplicates=0, rejected=0, reasons=(), unlinked=0
    )
    row = Span.objects.get(span_id=span_ids(3)[0])
    assert row.agent_id == agent.pk
    assert (row.source, row.operation, row.provider) == ("otlp", "chat", "openai")
    assert (row.input_tokens, row.output_tokens, row.cached_input_tokens) == (
        120,
        30,
        100,
    )
    assert row.request_params == {"temperature": 0.2, "max_tokens": 256, "seed": 7}
    assert (row.run_ref, row.case_ref) == ("run-42", "case-a")


def test_a_resent_export_counts_duplicates_and_stores_nothing_new(agent: Any) -> None:
    body = proto_body([proto_span(span_id=s) for s in span_ids(2)])
    ingest(body, agent)
    again = ingest(body, agent)
    assert (again.stored, again.duplicates) == (0, 2)
    assert Span.objects.count() == 2


def test_rejected_spans_are_counted_and_the_rest_stored(agent: Any) -> None:
    bad = json_span({"gen_ai.usage.input_tokens": -5}, span_id=span_ids(2)[0])
    good = json_span(span_id=span_ids(2)[1])
    result = ingest(json_body([bad, good]), agent, encoding="json")
    assert (result.stored, result.rejected) == (1, 1)
    assert result.reasons == (
        "resourceSpans[0].scopeSpans[0].spans[0]: input token count must be at "
        "least 0, got -5",
    )
    assert list(Span.objects.values_list("span_id", flat=True)) == [span_ids(2)[1]]


def test_a_thought_of_the_sending_agent_is_linked(agent: Any) -> None:
    thought = thought_actionable(agent)
    attributes = {**CHAT_ATTRIBUTES, "evalsite.thought.id": thought.pk}
    result = ingest(proto_body([proto_span(attributes)]), agent)
    assert result.unlinked == 0
    assert Span.objects.get().thought_ref == thought.pk


def test_a_thought_of_another_agent_is_not_linked(agent: Any, owner: Any) -> None:
    other = agent_make(owner=owner, name="other").agent
    theirs = thought_actionable(other)
    attributes = {**CHAT_ATTRIBUTES, "evalsite.thought.id": theirs.pk}
    missing = {**CHAT_ATTRIBUTES, "evalsite.thought.id": 999_999}
    spans = [
        proto_span(attributes, span_id=span_ids(2)[0]),
        proto_span(missing, span_id=span_ids(2)[1]),
    ]
    result = ingest(proto_body(spans), agent)
    assert (result.stored, result.unlinked) == (2, 2)
    assert set(Span.objects.values_list("thought_ref", flat=True)) == {None}


def test_thought_ids_owned_keeps_only_the_agents_own(agent: Any, owner: Any) -> None:
    mine = thought_actionable(agent)
    theirs = thought_actionable(agent_make(owner=owner, name="b").agent)
    assert thought_ids_owned(
        agent_id=agent.pk, thought_ids=[mine.pk, theirs.pk, 10**9]
    ) == {mine.pk}
    assert thought_ids_owned(agent_id=agent.pk, thought_ids=[]) == set()
    many = [mine.pk, *range(10**8, 10**8 + 2500)]
    assert thought_ids_owned(agent_id=agent.pk, thought_ids=many) == {mine.pk}


def test_content_is_dropped_when_the_setting_says_so(agent: Any, settings: Any) -> None:
    settings.TRACE_STORE_CONTENT = False
    attributes = {**CHAT_ATTRIBUTES, "gen_ai.prompt.0.content": "hi", "x.y": 1}
    ingest(proto_body([proto_span(attributes)]), agent)
    assert Span.objects.get().attributes == {
        "x.y": 1,
        "service.name": "agent-under-test",
    }


def test_content_is_kept_by_default(agent: Any) -> None:
    attributes = {**CHAT_ATTRIBUTES, "gen_ai.prompt.0.content": "hi"}
    ingest(proto_body([proto_span(attributes)]), agent)
    assert Span.objects.get().attributes["gen_ai.prompt.0.content"] == "hi"


def test_gzip_bodies_are_inflated(agent: Any) -> None:
    result = ingest(gzipped(proto_body([proto_span()])), agent, content_encoding="gzip")
    assert result.stored == 1


def test_an_undecodable_body_stores_nothing(agent: Any) -> None:
    with pytest.raises(Undecodable):
        ingest(b"\x0a\xff\xff", agent)
    with pytest.raises(Undecodable):
        ingest(b"not gzip", agent, content_encoding="gzip")
    assert not Span.objects.exists()


def test_an_inflated_body_over_the_limit_stores_nothing(
    agent: Any, settings: Any
) -> None:
    settings.TRACE_MAX_BODY_BYTES = 2048
    body = gzipped(proto_body([proto_span(span_id=s) for s in span_ids(40)]))
    assert len(body) < 2048
    with pytest.raises(BodyTooLarge):
        ingest(body, agent, content_encoding="gzip")
    assert not Span.objects.exists()


def test_the_ingest_is_logged_with_its_counts(agent: Any, log_lines: Any) -> None:
    bad = proto_span({"gen_ai.usage.input_tokens": 1.5}, span_id=span_ids(2)[0])
    ingest(proto_body([bad, proto_span(span_id=span_ids(2)[1])]), agent)
    assert log_lines("[Traces] otlp_ingested") == [
        f"[Traces] otlp_ingested agent={agent.pk} spans=2 stored=1 duplicates=0 "
        "rejected=1 unlinked=0"
    ]


def test_the_batch_insert_stores_what_the_orm_would(agent: Any) -> None:
    """``store_spans`` writes prepared values itself; every column reads
    back as a ``Span`` saved through the ORM reads back."""
    from dataclasses import replace
    from datetime import timedelta
    from decimal import Decimal

    from traces.core.otlp_map import map_span
    from traces.services.spans import span_row, store_spans

    span = proto_span({**CHAT_ATTRIBUTES, "gen_ai.usage.cost": 0.25, "x": "é\x00"})
    record = map_span(span, resource={"service.name": "svc"})
    record = replace(record, events=[{"name": "e", "attributes": {"k": [1, 2.5]}}])
    store_spans([record], agent_id=agent.pk)
    fast = Span.objects.get()
    twin = replace(record, span_id="00000000000000ff")
    slow = span_row(twin, agent_id=agent.pk)
    slow.cost_usd, slow.cost_source = Decimal("0.25"), "client"
    slow.received_at = fast.received_at
    slow.save()
    slow.refresh_from_db()
    skip = {"id", "span_id"}
    names = [f.attname for f in Span._meta.concrete_fields if f.attname not in skip]
    assert {n: getattr(fast, n) for n in names} == {n: getattr(slow, n) for n in names}
    assert fast.started_at == record.started_at
    assert fast.ended_at - fast.started_at == timedelta(milliseconds=1250)
    assert fast.attributes == {"x": "é\\u0000", "service.name": "svc"}
    assert Span.objects.filter(started_at__gte=record.started_at).count() == 2
    assert Span.objects.filter(attributes__x="é\\u0000").count() == 2
