"""Golden answers of the spans and traces API and of OTLP ingestion: one
request per route and answer kind, answered exactly as when recorded (see
``test_api_golden`` for how: a frozen clock, reset sequences, masked keys).

The price table is made here, not taken from the shipped file, so a new
shipped price changes no answer of this file.
"""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from core.scopes import SCOPES
from stream.services.agents import agent_create
from tests.golden.conftest import FROZEN_AT
from tests.golden.snapshots import Recorder
from traces.core.records import SOURCE_HARNESS, SOURCE_OTLP, SpanRecord, TokenUsage
from traces.models import PriceRule, PriceTable
from traces.services.pricing import prices_forget
from traces.services.spans import store_spans

pytestmark = [
    pytest.mark.django_db(transaction=True, reset_sequences=True),
    pytest.mark.usefixtures("frozen_clock"),
]

TRACE = "5b8efff798038103d269b633813fc60c"
RUN_TRACE = "a" * 32
RUN_ID = "golden-run"


def _prices() -> None:
    """One active table: gpt-4o-mini at 0.15/0.60 USD per 1M tokens."""
    PriceTable.objects.all().delete()
    table = PriceTable.objects.create(
        version="golden-1", source="admin", active=True, created_at=FROZEN_AT
    )
    PriceRule.objects.create(
        table=table,
        pattern="gpt-4o-mini*",
        input_per_mtok=Decimal("0.15"),
        output_per_mtok=Decimal("0.60"),
        cached_input_per_mtok=Decimal("0.075"),
    )
    prices_forget()


def _span(span_id: str, at_ms: int, **fields: Any) -> SpanRecord:
    start = FROZEN_AT - timedelta(minutes=5) + timedelta(milliseconds=at_ms)
    fields.setdefault("source", SOURCE_OTLP)
    fields.setdefault("trace_id", TRACE)
    return SpanRecord(
        span_id=span_id * 16,
        name=fields.pop("name", f"span {span_id}"),
        started_at=start,
        ended_at=start + timedelta(milliseconds=fields.pop("ms", 400)),
        **fields,
    )


def _spans(agent_id: int) -> None:
    store_spans(
        [
            _span("1", 0, name="invoke_agent alpha", operation="invoke_agent", ms=900),
            _span(
                "2",
                50,
                name="chat gpt-4o-mini",
                parent_span_id="1" * 16,
                operation="chat",
                provider="openai",
                request_model="gpt-4o-mini",
                response_model="gpt-4o-mini-2024-07-18",
                request_params={"temperature": 0.2, "max_tokens": 256},
                usage=TokenUsage(input=1000, output=200, cached_input=400),
                latency_ms=400.0,
                ttft_ms=90.0,
                finish_reason="stop",
                status="ok",
                thought_ref=7,
                attributes={"gen_ai.agent.name": "alpha"},
            ),
            _span(
                "3",
                500,
                name="execute_tool search",
                parent_span_id="1" * 16,
                operation="execute_tool",
                tool_name="search",
                attributes={"gen_ai.tool.call.arguments": '{"q": "oak"}'},
                events=[{"name": "result", "attributes": {"hits": 3}}],
            ),
            _span(
                "4",
                600,
                name="chat mystery",
                parent_span_id="1" * 16,
                operation="chat",
                request_model="mystery-model",
                status="error",
                error="upstream timeout",
                retries=2,
            ),
        ],
        agent_id=agent_id,
    )
    store_spans(
        [
            _span(
                "5",
                1000,
                trace_id=RUN_TRACE,
                source=SOURCE_HARNESS,
                provider="evalsite",
                request_model="scripted",
                run_ref=RUN_ID,
                case_ref="calm#1",
                client_cost_usd=Decimal("0"),
            )
        ]
    )


OTLP_EXPORT = {
    "resourceSpans": [
        {
            "resource": {
                "attributes": [
                    {"key": "service.name", "value": {"stringValue": "alpha"}}
                ]
            },
            "scopeSpans": [
                {
                    "spans": [
                        {
                            "traceId": "b" * 32,
                            "spanId": "c" * 16,
                            "name": "chat gpt-4o-mini",
                            "startTimeUnixNano": "1772798100000000000",
                            "endTimeUnixNano": "1772798100250000000",
                            "attributes": [
                                {
                                    "key": "gen_ai.operation.name",
                                    "value": {"stringValue": "chat"},
                                },
                                {
                                    "key": "gen_ai.request.model",
                                    "value": {"stringValue": "gpt-4o-mini"},
                                },
                                {
                                    "key": "gen_ai.usage.input_tokens",
                                    "value": {"intValue": "10"},
                                },
                                {
                                    "key": "gen_ai.usage.output_tokens",
                                    "value": {"intValue": "5"},
                                },
                            ],
                        },
                        {"traceId": "b" * 32, "spanId": "", "name": "no span id"},
                    ]
                }
            ],
        }
    ]
}


def test_traces_answers_are_unchanged(owner: Any, golden_update: bool) -> None:
    _prices()
    created = agent_create(name="alpha", owner=owner, scopes=SCOPES)
    rec = Recorder("traces")
    rec.masker.secrets[created.api_key] = "<api-key>"
    rec.masker.secrets[created.api_key.split("_")[1]] = "<key-prefix>"
    key = APIClient()
    key.credentials(HTTP_AUTHORIZATION=f"Bearer {created.api_key}")
    session = APIClient()
    session.force_authenticate(owner)
    _spans(created.agent.pk)

    rec.call("otlp-json", key, "post", "/v1/traces", json.dumps(OTLP_EXPORT).encode())
    wrong_type = key.generic(
        "POST", "/v1/traces", b"<spans/>", content_type="application/xml"
    )
    rec.keep("otlp-415", "post", "/v1/traces", "<spans/>", wrong_type)
    rec.call("otlp-401", APIClient(), "post", "/v1/traces", b"{}")

    rec.call("spans", key, "get", "/api/spans")
    first = rec.call("spans-page-1", key, "get", "/api/spans?model=gpt-4o-mini&limit=1")
    cursor = first.json()["nextCursor"]
    rec.call(
        "spans-page-2",
        key,
        "get",
        f"/api/spans?model=gpt-4o-mini&limit=1&cursor={cursor}",
    )
    rec.call("spans-of-a-run", session, "get", f"/api/spans?run={RUN_ID}")
    rec.call("spans-400", key, "get", "/api/spans?source=mail&since=yesterday&limit=0")
    rec.call("span", key, "get", "/api/spans/2")
    rec.call("span-404", key, "get", "/api/spans/5")
    rec.call("trace", key, "get", f"/api/traces/{TRACE}")
    rec.call("trace-404", key, "get", f"/api/traces/{RUN_TRACE}")
    rec.call("trace-400", key, "get", "/api/traces/not-a-trace")
    rec.call("trace-of-a-run", session, "get", f"/api/traces/{RUN_TRACE}")
    rec.call("spans-401", APIClient(), "get", "/api/spans")
    rec.check(golden_update)
