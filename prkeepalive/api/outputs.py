"""The answers of the PR keepalive API and their OpenAPI schema, from one
definition: each serializer below builds the body its view returns and is
the schema drf-spectacular writes for it, so a field added to an answer is a
field of the schema.

Values go out as the models and the core's records hold them: times as
``datetime.isoformat()`` writes them, enums as their values, a recorded
decision's ``inputs`` as stored.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


@extend_schema_field(OpenApiTypes.DATETIME)
class Timestamp(serializers.Field):
    """A stored time as ``datetime.isoformat()`` writes it."""

    def to_representation(self, value: Any) -> Any:
        return value.isoformat()


class DispatchDecisionSerializer(serializers.Serializer):
    """A dispatch decision of the core (``DispatchDecision``)."""

    ok = serializers.BooleanField()
    lane = serializers.CharField()
    reason = serializers.CharField()
    detail = serializers.CharField()
    prNumber = serializers.IntegerField(source="pr_number", allow_null=True)
    activationId = serializers.IntegerField(source="activation_id", allow_null=True)
    agent = serializers.CharField()
    headSha = serializers.CharField(source="head_sha")
    cap = serializers.IntegerField()
    active = serializers.IntegerField()
    trace = serializers.CharField()
    round = serializers.IntegerField(allow_null=True)
    failsJob = serializers.BooleanField(source="fails_job")


class ExplanationSerializer(serializers.Serializer):
    """The dry run's answer (``prkeepalive.core.explain.Explanation``)."""

    handled = serializers.BooleanField()
    ignoredReason = serializers.CharField(source="ignored_reason")
    decision = DispatchDecisionSerializer(allow_null=True)
    lines = serializers.ListField(child=serializers.CharField())
    words = serializers.CharField()


class RecordedDecisionSerializer(serializers.Serializer):
    """A decision evalsite recorded for a PR (the ``Decision`` row); its
    ``inputs`` are the dry-run request it decided on."""

    id = serializers.IntegerField(source="pk")
    createdAt = Timestamp(source="created_at")
    source = serializers.CharField()
    lane = serializers.CharField()
    ok = serializers.BooleanField()
    reason = serializers.CharField()
    detail = serializers.CharField()
    activationCommentId = serializers.IntegerField(
        source="activation_comment_id", allow_null=True
    )
    agent = serializers.CharField()
    headSha = serializers.CharField(source="head_sha")
    cap = serializers.IntegerField()
    active = serializers.IntegerField()
    trace = serializers.CharField()
    line = serializers.CharField()
    inputs = serializers.JSONField()


class RoundSerializer(serializers.Serializer):
    """An orchestrator round of a PR (the ``Round`` row) with its summary
    lines."""

    id = serializers.IntegerField(source="pk")
    createdAt = Timestamp(source="created_at")
    number = serializers.IntegerField()
    trace = serializers.CharField()
    status = serializers.CharField()
    activationCommentId = serializers.IntegerField(source="activation_comment_id")
    instructionCommentId = serializers.IntegerField(
        source="instruction_comment_id", allow_null=True
    )
    instructionAuthor = serializers.CharField(source="instruction_author")
    headBefore = serializers.CharField(source="head_before")
    headAfter = serializers.CharField(source="head_after")
    lines = serializers.ListField(child=serializers.CharField())


class PullDecisionsSerializer(serializers.Serializer):
    """A page of a PR's decisions, newest first."""

    pr = serializers.IntegerField()
    repository = serializers.CharField()
    decisions = RecordedDecisionSerializer(many=True)


class PullRoundsSerializer(serializers.Serializer):
    """A page of a PR's rounds, newest first."""

    pr = serializers.IntegerField()
    repository = serializers.CharField()
    rounds = RoundSerializer(many=True)
