"""Serializers of the cognitive stream's API: what a thought, an event and
the counters look like on the wire (each shape defined once, read by both the
answer and the API schema), and the inputs the endpoints accept."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from django.conf import settings
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import (
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from core.schemas import as_openapi, load_validator
from stream.core.thought_input import CONTENT_MAX_CHARS, DEFAULT_TYPE, TYPE_PATTERN
from stream.core.thought_types import (
    RESERVED_TYPES,
    is_reserved_type,
)
from stream.models import StreamEvent, Thought


def _iso(moment: Any) -> str | None:
    return moment.isoformat() if moment else None


# The output shape of a thought, once: each wire field, how it is read from
# the row, and how the API schema documents it.
THOUGHT_WIRE: tuple[tuple[str, Callable[[Thought], Any], serializers.Field], ...] = (
    ("id", lambda t: t.pk, serializers.IntegerField()),
    ("agent", lambda t: t.agent.name, serializers.CharField()),
    ("type", lambda t: t.type, serializers.CharField()),
    ("content", lambda t: t.content, serializers.CharField()),
    ("processed", lambda t: t.processed, serializers.BooleanField()),
    (
        "processedAt",
        lambda t: _iso(t.processed_at),
        serializers.DateTimeField(allow_null=True),
    ),
    (
        "processedBy",
        lambda t: t.processed_by or None,
        serializers.CharField(allow_null=True),
    ),
    (
        "convertEligible",
        lambda t: t.convert_eligible,
        serializers.BooleanField(allow_null=True),
    ),
    ("eligibilityReason", lambda t: t.eligibility_reason, serializers.CharField()),
    (
        "novelty",
        lambda t: t.novelty,
        serializers.ChoiceField(choices=["high", "medium", "low"]),
    ),
    ("source", lambda t: t.source, serializers.CharField()),
    ("metadata", lambda t: t.metadata, serializers.DictField()),
    ("createdAt", lambda t: t.created_at.isoformat(), serializers.DateTimeField()),
)


def thought_to_wire(thought: Thought) -> dict[str, Any]:
    return {name: read(thought) for name, read, _ in THOUGHT_WIRE}


def event_to_wire(event: StreamEvent) -> dict[str, Any]:
    return {
        "id": event.pk,
        "type": event.type,
        "metadata": event.metadata,
        "createdAt": event.created_at.isoformat(),
    }


# The schema of the same fields (drf-spectacular names it ThoughtOutput).
ThoughtOutputSerializer = type(
    "ThoughtOutputSerializer",
    (serializers.Serializer,),
    {name: field for name, _, field in THOUGHT_WIRE},
)


FeedSerializer = inline_serializer(
    "ThoughtFeed",
    {
        "count": serializers.IntegerField(),
        "thoughts": ThoughtOutputSerializer(many=True),
    },
)


CountersSerializer = inline_serializer(
    "AgencyCounters",
    {
        **{
            name: serializers.IntegerField()
            for name in (
                "llmCalls",
                "goalTags",
                "driveTicks",
                "signatureSuppressions",
                "contentSuppressions",
                "intentExtractions",
                "lowNoveltyRecorded",
                "lowNoveltyBroadcast",
                "startedAtMs",
                "uptimeMin",
            )
        },
        "startedAt": serializers.DateTimeField(),
    },
)


_FRAME = load_validator("stream.core", "frame.v1.schema.json").schema


@extend_schema_field(as_openapi(_FRAME, _FRAME["properties"]["facts"]))
class FactsField(serializers.JSONField):
    """The percept's facts: the frame schema refuses anything but an object,
    and the API schema says so."""


class PerceptInputSerializer(serializers.Serializer):
    type = serializers.ChoiceField(
        choices=["environmental_awareness"], default="environmental_awareness"
    )
    facts = FactsField(
        help_text='{"bot": {...}, "world": {...}} as in the frame schema'
    )
    metadata = serializers.DictField(required=False)


class StrictCharField(serializers.CharField):
    """A string, and only a string: numbers are not silently turned into text."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field(
    {
        "type": "string",
        "pattern": TYPE_PATTERN,
        "not": {"enum": list(RESERVED_TYPES)},
        "default": DEFAULT_TYPE,
        "description": "not one of the types only the service writes",
    }
)
class ThoughtTypeField(serializers.RegexField):
    """A thought's type; the schema also names the reserved types it refuses
    (``validate_type``)."""


class ThoughtInputSerializer(serializers.Serializer):
    """One posted thought: the one check of a posted thought's body (its
    limits are ``stream.core.thought_input``'s)."""

    content = StrictCharField(max_length=CONTENT_MAX_CHARS, trim_whitespace=False)
    type = ThoughtTypeField(TYPE_PATTERN, default=DEFAULT_TYPE)
    convertEligible = serializers.BooleanField(required=False, allow_null=True)
    metadata = serializers.DictField(required=False)

    def validate_type(self, value: str) -> str:
        if is_reserved_type(value):
            raise ValidationError(
                f"{value!r} is reserved for thoughts the service writes "
                f"({', '.join(RESERVED_TYPES)})."
            )
        return value


class ThoughtBatchInputSerializer(serializers.Serializer):
    thoughts = ThoughtInputSerializer(many=True, allow_empty=False)

    def validate_thoughts(self, value: list[Any]) -> list[Any]:
        if len(value) > settings.STREAM_MAX_BATCH:
            raise ValidationError(
                f"at most {settings.STREAM_MAX_BATCH} thoughts per batch"
            )
        return value


class AckInputSerializer(serializers.Serializer):
    thoughtIds = serializers.ListField(
        child=serializers.IntegerField(min_value=1), allow_empty=False
    )
    processedBy = serializers.CharField(required=False, max_length=200, default="")

    def validate_thoughtIds(self, value: list[int]) -> list[int]:
        if len(value) > settings.STREAM_MAX_ACK_IDS:
            raise ValidationError(f"at most {settings.STREAM_MAX_ACK_IDS} ids per ack")
        return value


class _MaxItemsSchema(OpenApiSerializerExtension):
    """Declares in the API schema, as ``maxItems``, the item limits a
    serializer checks in its ``validate_<field>`` methods, and ``minItems: 1``
    for those lists (``allow_empty=False``). The limit is read from settings
    each time the schema is built, so the schema states the configured value;
    validation and its messages stay in the serializer."""

    limits: ClassVar[dict[str, str]] = {}

    def map_serializer(self, auto_schema: Any, direction: Any) -> Any:
        schema = auto_schema._map_serializer(
            self.target, direction, bypass_extensions=True
        )
        for field, setting in self.limits.items():
            schema["properties"][field]["minItems"] = 1
            schema["properties"][field]["maxItems"] = getattr(settings, setting)
        return schema


class ThoughtBatchInputSchema(_MaxItemsSchema):
    target_class = ThoughtBatchInputSerializer
    limits: ClassVar[dict[str, str]] = {"thoughts": "STREAM_MAX_BATCH"}


class AckInputSchema(_MaxItemsSchema):
    target_class = AckInputSerializer
    limits: ClassVar[dict[str, str]] = {"thoughtIds": "STREAM_MAX_ACK_IDS"}
