"""REST API of the cognitive stream: serializers and views, thin.

Paths are exactly the stream contract's (``/api/cognitive-stream/...``). Every endpoint
except ``whoami`` acts for the agent whose API key authenticated the call.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import (
    PolymorphicProxySerializer,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import Throttled, ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evalsite.paging import limit_parameter
from evalsite.parsers import require_no_body
from stream.api.serializers import (
    AckInputSerializer,
    CountersSerializer,
    FeedSerializer,
    PerceptInputSerializer,
    ThoughtBatchInputSerializer,
    ThoughtInputSerializer,
    ThoughtOutputSerializer,
    event_to_wire,
    thought_to_wire,
)
from stream.core.thought_types import (
    ignored_fields,
)
from stream.models import Agent
from stream.selectors import thoughts_recent
from stream.services.counters import counters_get, counters_reset, counters_to_wire
from stream.services.keepalive import events_take, keepalive_poke
from stream.services.thought_feed import thoughts_ack, thoughts_actionable
from stream.services.thoughts import (
    ThoughtInput,
    dev_injection_enabled,
    percept_record,
    thoughts_publish,
)


class IsAgent(BasePermission):
    message = "This endpoint needs an agent API key (Authorization: Bearer <key>)."

    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, Agent)


def _limit(request: Request, *, default: int, maximum: int) -> int:
    raw = request.query_params.get("limit")
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError({"limit": ["limit must be an integer."]}) from None
    if not 1 <= value <= maximum:
        raise ValidationError({"limit": [f"limit must be between 1 and {maximum}."]})
    return value


class PerceptView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(
        request=PerceptInputSerializer,
        responses={
            201: inline_serializer(
                "PerceptRecorded",
                {
                    "snapshotId": serializers.IntegerField(),
                    "suppressed": serializers.BooleanField(),
                    "contentHash": serializers.CharField(),
                    "thought": ThoughtOutputSerializer(allow_null=True),
                },
            )
        },
    )
    def post(self, request: Request) -> Response:
        serializer = PerceptInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = percept_record(agent=request.auth, document=serializer.validated_data)
        return Response(
            {
                "snapshotId": result.snapshot.pk,
                "suppressed": result.suppressed,
                "contentHash": result.content_hash,
                "thought": thought_to_wire(result.thought) if result.thought else None,
            },
            status=status.HTTP_201_CREATED,
        )


def _ignored_fields(data: Any) -> list[str]:
    """Fields of one posted thought that had no effect (listed, never an error)."""
    if not isinstance(data, dict):
        return []
    return ignored_fields(data, injection_enabled=dev_injection_enabled())


def _thought_input(data: dict[str, Any]) -> ThoughtInput:
    return ThoughtInput(
        content=data["content"],
        type=data["type"],
        source="agent",
        convert_eligible_claim=data.get("convertEligible"),
        client_metadata=data.get("metadata") or {},
    )


class ThoughtPublishView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(
        request=PolymorphicProxySerializer(
            component_name="ThoughtPublish",
            serializers=[ThoughtInputSerializer, ThoughtBatchInputSerializer],
            resource_type_field_name=None,
        ),
        responses={
            201: PolymorphicProxySerializer(
                component_name="ThoughtPublished",
                serializers=[
                    ThoughtOutputSerializer,
                    inline_serializer(
                        "ThoughtBatchPublished",
                        {
                            "count": serializers.IntegerField(),
                            "thoughts": ThoughtOutputSerializer(many=True),
                        },
                    ),
                ],
                resource_type_field_name=None,
            )
        },
        description=(
            'Publish raw model output (or a batch as {"thoughts": [...]}); the '
            "pipeline decides convertEligible. processed always starts false."
        ),
    )
    def post(self, request: Request) -> Response:
        data = request.data
        if isinstance(data, dict) and "thoughts" in data:
            batch = ThoughtBatchInputSerializer(data=data)
            batch.is_valid(raise_exception=True)
            validated = batch.validated_data["thoughts"]
            items = [_thought_input(d) for d in validated]
            thoughts = thoughts_publish(agent=request.auth, items=items)
            bodies = []
            for raw, thought in zip(data["thoughts"], thoughts, strict=True):
                body = thought_to_wire(thought)
                if ignored := _ignored_fields(raw):
                    body["ignoredFields"] = ignored
                bodies.append(body)
            return Response(
                {"count": len(thoughts), "thoughts": bodies},
                status=status.HTTP_201_CREATED,
            )
        serializer = ThoughtInputSerializer(data=data)
        serializer.is_valid(raise_exception=True)
        single = serializer.validated_data
        (thought,) = thoughts_publish(
            agent=request.auth, items=[_thought_input(single)]
        )
        body = thought_to_wire(thought)
        if ignored := _ignored_fields(data):
            body["ignoredFields"] = ignored
        return Response(body, status=status.HTTP_201_CREATED)


class RecentView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(
        parameters=[limit_parameter(default=20, maximum=200)],
        responses=FeedSerializer,
    )
    def get(self, request: Request) -> Response:
        limit = _limit(request, default=20, maximum=200)
        thoughts = thoughts_recent(agent=request.auth, limit=limit)
        return Response(
            {"count": len(thoughts), "thoughts": [thought_to_wire(t) for t in thoughts]}
        )


class ActionableView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(
        parameters=[limit_parameter(default=10, maximum=100)],
        responses=FeedSerializer,
        description="Only unprocessed thoughts with convertEligible === true (SC-B1).",
    )
    def get(self, request: Request) -> Response:
        limit = _limit(request, default=10, maximum=100)
        thoughts = thoughts_actionable(agent=request.auth, limit=limit)
        return Response(
            {"count": len(thoughts), "thoughts": [thought_to_wire(t) for t in thoughts]}
        )


class AckView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(
        request=AckInputSerializer,
        responses=inline_serializer(
            "AckResult",
            {
                "requested": serializers.IntegerField(),
                "acked": serializers.IntegerField(),
                "newlyAcked": serializers.IntegerField(),
                "alreadyProcessed": serializers.ListField(
                    child=serializers.IntegerField()
                ),
                "unknown": serializers.ListField(child=serializers.IntegerField()),
            },
        ),
        description="The only path to processed=true (I-4); idempotent.",
    )
    def post(self, request: Request) -> Response:
        serializer = AckInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = thoughts_ack(
            agent=request.auth,
            thought_ids=serializer.validated_data["thoughtIds"],
            processed_by=serializer.validated_data["processedBy"] or request.auth.name,
        )
        return Response(
            {
                "requested": result.requested,
                "acked": result.acked,
                "newlyAcked": result.newly_acked,
                "alreadyProcessed": list(result.already_processed),
                "unknown": list(result.unknown),
            }
        )


class PokeView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(
        request=None,
        responses={
            202: inline_serializer("Poked", {"poked": serializers.BooleanField()})
        },
        description=(
            "An eval poke: the next keep-alive tick bypasses the cooldown. At most "
            "KEEPALIVE_MAX_POKES_PER_MIN per agent a minute; over it, 429."
        ),
    )
    def post(self, request: Request) -> Response:
        require_no_body(request)
        outcome = keepalive_poke(agent=request.auth)
        if not outcome.accepted:
            raise Throttled(wait=-(-outcome.retry_after_ms // 1000))
        return Response({"poked": True}, status=status.HTTP_202_ACCEPTED)


class CountersView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(responses=CountersSerializer)
    def get(self, request: Request) -> Response:
        counters = counters_get(agent=request.auth)
        return Response(counters_to_wire(counters, now=timezone.now()))


class CountersResetView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(request=None, responses=CountersSerializer)
    def post(self, request: Request) -> Response:
        require_no_body(request)
        counters = counters_reset(agent=request.auth)
        return Response(counters_to_wire(counters, now=timezone.now()))


class EventsView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(
        responses=inline_serializer(
            "StreamEvents",
            {"count": serializers.IntegerField(), "events": serializers.ListField()},
        ),
        description="Pending events for the agent (perception refresh requests).",
    )
    def get(self, request: Request) -> Response:
        events = events_take(agent=request.auth)
        return Response(
            {"count": len(events), "events": [event_to_wire(e) for e in events]}
        )


class WhoAmIView(APIView):
    """Who the caller is: the user and, with an API key, the agent."""

    @extend_schema(
        responses=inline_serializer(
            "WhoAmI",
            {
                "user": serializers.CharField(),
                "agent": serializers.CharField(allow_null=True),
            },
        )
    )
    def get(self, request: Request) -> Response:
        agent = getattr(request.auth, "name", None)
        return Response({"user": request.user.get_username(), "agent": agent})
