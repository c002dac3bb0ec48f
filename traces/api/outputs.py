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

import functools
import re
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from django.urls import NoReverseMatch, reverse
from django.utils.http import RFC3986_SUBDELIMS
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
    """The path of a route, or None when there is none of that name."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


# Stand-ins reversed in place of a link's values: a route's path is worked
# out once per process, not once per span (``reverse`` was most of a list's
# time).
_STAND_INS: dict[str, int | str] = {
    "int": 918273645,
    "str": "zq9standinq9z",
    "trace": "9e1f" * 8,  # a trace page's route takes 32 hex digits only
}
STORED_TRACE_ID = re.compile(r"^[0-9a-f]{32}$")


@functools.cache
def link_template(name: str, *kinds: str) -> str | None:
    """The path of route ``name`` as a ``str.format`` template with one
    ``{0}``, ``{1}`` ... per argument (of kind ``int``, ``str`` or
    ``trace``, a key of ``_STAND_INS``); None when the route does not exist."""
    path = page_url(name, *(_STAND_INS[kind] for kind in kinds))
    if path is None:
        return None
    template = path.replace("{", "{{").replace("}", "}}")
    for index, kind in enumerate(kinds):
        template = template.replace(str(_STAND_INS[kind]), f"{{{index}}}", 1)
    return template


def link(name: str, *values: int | str, kinds: tuple[str, ...] = ()) -> str | None:
    """The path of route ``name`` for ``values``, as ``reverse`` writes it;
    None where a number is negative, a text value is empty or holds a ``/``
    (no route's segment can), a ``trace`` value is no trace id, or the route
    does not exist."""
    kinds = kinds or tuple("int" if isinstance(v, int) else "str" for v in values)
    if any(
        kind == "trace" and STORED_TRACE_ID.match(str(value)) is None
        for kind, value in zip(kinds, values, strict=True)
    ):
        return None
    template = link_template(name, *kinds)
    if template is None:
        return None
    shown: list[str] = []
    for value in values:
        if isinstance(value, str):
            if not value or "/" in value:
                return None
            value = quote(value, safe=RFC3986_SUBDELIMS + "~:@")
        elif value < 0:
            return None
        shown.append(str(value))
    return template.format(*shown)


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
        base = self.context.get("base", "")

        def absolute(path: str | None) -> str | None:
            return None if path is None else base + path

        span = instance
        agent = span.agent
        thought = None
        if span.thought_ref is not None and agent is not None:
            thought = link("stream:thought-detail", agent.name, span.thought_ref)
        case = None
        if span.case_ref:
            case = link("evals:scenario-detail", span.run_ref, span.case_ref)
        return {
            "self": absolute(link("traces-api-span", span.pk)),
            "trace": absolute(link("traces-api-trace", span.trace_id)),
            "tracePage": absolute(
                link("traces:trace-detail", span.trace_id, kinds=("trace",))
            ),
            "thought": absolute(thought),
            "run": absolute(link("evals:run-detail", span.run_ref)),
            "case": absolute(case),
        }


def span_context(request: Any, **flags: bool) -> dict[str, Any]:
    """The serializers' context: the request, the site's absolute base for
    links (``http://host``) and the flags (``detail``, ``trace``)."""
    return {"request": request, "base": request.build_absolute_uri("/")[:-1], **flags}


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
