"""The dry run and the PR's record:

- ``POST /api/prkeepalive/explain`` (signed-in users, agent keys);
- ``GET /api/prkeepalive/repos/<owner>/<name>/pulls/<n>/decisions`` and
  ``/rounds``, newest first.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiTypes, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from prkeepalive.models import Decision, Round
from prkeepalive.selectors import decisions_for, pull_get, rounds_for
from prkeepalive.services.explain import explain_document

MAX_LIMIT = 500


class ExplainView(APIView):
    @extend_schema(
        request={
            "application/json": {
                "type": "object",
                "required": ["event", "payload"],
                "properties": {
                    "event": {"type": "string"},
                    "payload": {"type": "object"},
                    "state": {"type": "object"},
                },
            }
        },
        responses=OpenApiTypes.OBJECT,
        summary="Dry run: why would (or didn't) a keepalive round run?",
    )
    def post(self, request: Request) -> Response:
        return Response(explain_document(request.data))


def decision_wire(d: Decision) -> dict[str, Any]:
    return {
        "id": d.pk,
        "createdAt": d.created_at.isoformat(),
        "source": d.source,
        "lane": d.lane,
        "ok": d.ok,
        "reason": d.reason,
        "detail": d.detail,
        "activationCommentId": d.activation_comment_id,
        "agent": d.agent,
        "headSha": d.head_sha,
        "cap": d.cap,
        "active": d.active,
        "trace": d.trace,
        "line": d.line,
        "inputs": d.inputs,
    }


def round_wire(r: Round) -> dict[str, Any]:
    return {
        "id": r.pk,
        "createdAt": r.created_at.isoformat(),
        "number": r.number,
        "trace": r.trace,
        "status": r.status,
        "activationCommentId": r.activation_comment_id,
        "instructionCommentId": r.instruction_comment_id,
        "instructionAuthor": r.instruction_author,
        "headBefore": r.head_before,
        "headAfter": r.head_after,
        "lines": r.lines,
    }


class ListQuerySerializer(serializers.Serializer):
    limit = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_LIMIT, default=100
    )


class PullDecisionsView(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT, parameters=[ListQuerySerializer])
    def get(self, request: Request, owner: str, name: str, number: int) -> Response:
        query = ListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        pull = pull_get(owner=owner, name=name, number=number)
        items = decisions_for(pull, limit=query.validated_data["limit"])
        return Response(
            {
                "pr": number,
                "repository": pull.repository.full_name,
                "decisions": [decision_wire(d) for d in items],
            }
        )


class PullRoundsView(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT, parameters=[ListQuerySerializer])
    def get(self, request: Request, owner: str, name: str, number: int) -> Response:
        query = ListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        pull = pull_get(owner=owner, name=name, number=number)
        items = rounds_for(pull, limit=query.validated_data["limit"])
        return Response(
            {
                "pr": number,
                "repository": pull.repository.full_name,
                "rounds": [round_wire(r) for r in items],
            }
        )
