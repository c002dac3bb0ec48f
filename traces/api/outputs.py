"""The answers of the spans and traces API and their OpenAPI schema, from
one definition: each serializer below builds the body its view returns and
is the schema drf-spectacular writes for it (schemathesis checks every
answer against it).

Values go out as the span row holds them, with the API's conventions:
camelCase names, ``isoformat()`` times, blank text as null, token counts
null where the source did not report them (never 0), a cost as a decimal
string (exact; a float would round it) or null when unknown.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.urls import NoReverseMatch, reverse
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers
from rest_framework.fields import SkipField

from traces.core.records import COST_SOURCES, SOURCES, STATUSES

# A cost is a decimal number written out in full: "0.0123", never "1E-7".
COST_PATTERN = r"^-?[0-9]+(\.[0-9]+)?$"


def cost_text(value: Decimal | None) -> str | None:
    """``value`` as a plain decimal string without trailing zeros."""
    if value is None:
        return None
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


def page_url(name: str, *args: Any) -> str | None:
    """The path of a page, or None when no such page exists (a case id no
    route can hold, a page not installed)."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def traces_url(name: str, *args: Any) -> str | None:
    """A route of this app, named with or without the ``traces`` namespace."""
    return page_url(f"traces:{name}", *args) or page_url(name, *args)


class AsIs(serializers.Field):
    """A field whose value goes out as the row holds it; ``blank_is_null``
    turns ``""`` into null; ``only`` names the context flag without which
    the field is left out (``detail``: a span on its own; ``trace``: a span
    in its trace's waterfall)."""

    def __init__(
        self, *args: Any, blank_is_null: bool = False, only: str = "", **kw: Any
    ) -> None:
        self.blank_is_null = blank_is_null
        self.only = only
        super().__init__(*args, **kw)

    def get_attribute(self, instance: Any) -> Any:
        if self.only and not self.context.get(self.only):
            raise SkipField()
        value = super().get_attribute(instance)
        return (value or None) if self.blank_is_null else value

    def to_representation(self, value: Any) -> Any:
        return value


class Text(AsIs, serializers.CharField):
    pass


class Integer(AsIs, serializers.IntegerField):
    pass


class Number(AsIs, serializers.FloatField):
    pass


class Choice(AsIs, serializers.ChoiceField):
    pass


class Document(AsIs, serializers.DictField):
    pass


class Items(AsIs, serializers.ListField):
    pass


class Timestamp(AsIs, serializers.DateTimeField):
    def to_representation(self, value: Any) -> Any:
        return value.isoformat()


@extend_schema_field(
    {
        "type": "string",
        "pattern": COST_PATTERN,
        "nullable": True,
        "description": "US dollars as a decimal string; null when unknown",
    }
)
class Cost(AsIs):
    def to_representation(self, value: Any) -> Any:
        return cost_text(value)


class AgentName(Text):
    """The agent's name; null for a span no agent sent (the harness's)."""

    def to_representation(self, value: Any) -> Any:
        return None if value is None else value.name


class TokensSerializer(serializers.Serializer):
    """The tokens of a call; null is "not reported", never 0."""

    input = Integer(source="input_tokens", allow_null=True)
    output = Integer(source="output_tokens", allow_null=True)
    cachedInput = Integer(source="cached_input_tokens", allow_null=True)  # noqa: N815
    cacheWrite = Integer(source="cache_write_tokens", allow_null=True)  # noqa: N815
    reasoning = Integer(source="reasoning_tokens", allow_null=True)


class SpanLinksSerializer(serializers.Serializer):
    """Where the span's API resources and pages are; null where it has no
    such link (no thought, no run)."""

    self = serializers.CharField()
    trace = serializers.CharField(help_text="the trace in this API")
    tracePage = serializers.CharField(allow_null=True)  # noqa: N815
    thought = serializers.CharField(allow_null=True)
    run = serializers.CharField(allow_null=True)
    case = serializers.CharField(allow_null=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        request = self.context.get("request")

        def absolute(path: str | None) -> str | None:
            if path is None or request is None:
                return path
            return request.build_absolute_uri(path)

        span = instance
        agent = span.agent
        thought = None
        if span.thought_ref is not None and agent is not None:
            thought = page_url("stream:thought-detail", agent.name, span.thought_ref)
        run = page_url("evals:run-detail", span.run_ref) if span.run_ref else None
        case = None
        if span.run_ref and span.case_ref:
            case = page_url("evals:scenario-detail", span.run_ref, span.case_ref)
        return {
            "self": absolute(traces_url("traces-api-span", span.pk)),
            "trace": absolute(traces_url("traces-api-trace", span.trace_id)),
            "tracePage": absolute(trace_page(span.trace_id)),
            "thought": absolute(thought),
            "run": absolute(run),
            "case": absolute(case),
        }


def trace_page(trace_id: str) -> str | None:
    """The trace's page, under whichever name the pages give it."""
    for name in ("trace-detail", "trace"):
        url = traces_url(name, trace_id)
        if url is not None:
            return url
    return None


class SpanOutputSerializer(serializers.Serializer):
    """One span; ``detail`` in the context adds its attributes and events."""

    id = Integer(source="pk")
    traceId = Text(source="trace_id")  # noqa: N815
    spanId = Text(source="span_id")  # noqa: N815
    parentSpanId = Text(  # noqa: N815
        source="parent_span_id", allow_null=True, blank_is_null=True
    )
    name = Text()
    kind = Text()
    source = Choice(choices=list(SOURCES))
    agent = AgentName(allow_null=True)
    operation = Text(allow_null=True, blank_is_null=True)
    provider = Text(allow_null=True, blank_is_null=True)
    requestModel = Text(  # noqa: N815
        source="request_model", allow_null=True, blank_is_null=True
    )
    responseModel = Text(  # noqa: N815
        source="response_model", allow_null=True, blank_is_null=True
    )
    params = Document(
        source="request_params",
        help_text="the request parameters as sent (temperature, max tokens, seed, ...)",
    )
    tokens = TokensSerializer(source="*")
    cost = Cost(source="cost_usd", allow_null=True)
    costSource = Choice(  # noqa: N815
        source="cost_source",
        choices=[c for c in COST_SOURCES if c],
        allow_null=True,
        blank_is_null=True,
        help_text="client: sent with the span; computed: from the price table "
        "(priceVersion); unknown: a model call with no price; null: not a "
        "model call",
    )
    priceVersion = Text(  # noqa: N815
        source="price_version", allow_null=True, blank_is_null=True
    )
    startedAt = Timestamp(source="started_at")  # noqa: N815
    endedAt = Timestamp(source="ended_at")  # noqa: N815
    latencyMs = Number(source="latency_ms", allow_null=True)  # noqa: N815
    ttftMs = Number(  # noqa: N815
        source="ttft_ms", allow_null=True, help_text="time to first token (streaming)"
    )
    finishReason = Text(  # noqa: N815
        source="finish_reason", allow_null=True, blank_is_null=True
    )
    retries = Integer(allow_null=True)
    status = Choice(choices=list(STATUSES))
    error = Text(allow_null=True, blank_is_null=True)
    conversationId = Text(  # noqa: N815
        source="conversation_id", allow_null=True, blank_is_null=True
    )
    toolName = Text(source="tool_name", allow_null=True, blank_is_null=True)  # noqa: N815
    thoughtId = Integer(source="thought_ref", allow_null=True)  # noqa: N815
    runId = Text(source="run_ref", allow_null=True, blank_is_null=True)  # noqa: N815
    caseId = Text(source="case_ref", allow_null=True, blank_is_null=True)  # noqa: N815
    links = SpanLinksSerializer(source="*")
    attributes = Document(
        required=False, only="detail", help_text="detail: every other attribute"
    )
    events = Items(
        child=serializers.DictField(),
        required=False,
        only="detail",
        help_text="detail: the span's events",
    )
    depth = Integer(
        required=False,
        only="trace",
        help_text="in a trace: how deep under its root the span is (0: a root)",
    )
    offsetMs = Number(  # noqa: N815
        source="offset_ms",
        required=False,
        only="trace",
        help_text="in a trace: its start, in ms after the trace's first span",
    )


SPAN_PAGE = inline_serializer(
    "SpanPage",
    {
        "results": SpanOutputSerializer(many=True),
        "nextCursor": serializers.CharField(
            allow_null=True,
            help_text="pass as cursor for the next page; null on the last one",
        ),
    },
)


class TraceTotalsSerializer(serializers.Serializer):
    spans = serializers.IntegerField()
    modelCalls = serializers.IntegerField(source="model_calls")  # noqa: N815
    errors = serializers.IntegerField()
    tokens = TokensSerializer()
    cost = Cost(
        allow_null=True,
        help_text="the sum of the known costs; null when no call was priced",
    )
    unpricedCalls = serializers.IntegerField(  # noqa: N815
        source="unpriced_calls",
        help_text="model calls with no price: the cost leaves them out",
    )
    durationMs = serializers.FloatField(source="duration_ms")  # noqa: N815


TRACE_OUTPUT = inline_serializer(
    "Trace",
    {
        "traceId": serializers.CharField(),
        "startedAt": serializers.DateTimeField(),
        "endedAt": serializers.DateTimeField(),
        "truncated": serializers.BooleanField(
            help_text="whether spans lists only the earliest spans of the trace"
        ),
        "totals": TraceTotalsSerializer(),
        "spans": SpanOutputSerializer(many=True),
    },
)
