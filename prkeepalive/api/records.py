"""The dry run and the PR's record:

- ``POST /api/prkeepalive/explain`` (signed-in users, agent keys);
- ``GET /api/prkeepalive/repos/<owner>/<name>/pulls/<n>/decisions`` and
  ``/rounds``, newest first, paged by ``limit`` and ``offset``
  (``evalsite.paging``).

Every answer is built by its serializer in ``prkeepalive.api.outputs``,
which is also its schema. The dry run's request (an event name, GitHub's
payload, the camelCase state) is read and checked by the core, every
problem named at once; its schema is stated here.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evalsite.paging import limit_offset, page_parameters
from prkeepalive.api.outputs import (
    ExplanationSerializer,
    PullDecisionsSerializer,
    PullRoundsSerializer,
)
from prkeepalive.selectors import decisions_for, pull_get, rounds_for
from prkeepalive.services.explain import explanation_of

DEFAULT_LIMIT = 100
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
        responses=ExplanationSerializer,
        summary="Dry run: why would (or didn't) a keepalive round run?",
    )
    def post(self, request: Request) -> Response:
        return Response(ExplanationSerializer(explanation_of(request.data)).data)


class PullDecisionsView(APIView):
    @extend_schema(
        responses=PullDecisionsSerializer,
        parameters=page_parameters(default=DEFAULT_LIMIT, maximum=MAX_LIMIT),
    )
    def get(self, request: Request, owner: str, name: str, number: int) -> Response:
        limit, offset = limit_offset(request, default=DEFAULT_LIMIT, maximum=MAX_LIMIT)
        pull = pull_get(owner=owner, name=name, number=number)
        page = {
            "pr": number,
            "repository": pull.repository.full_name,
            "decisions": decisions_for(pull, limit=limit, offset=offset),
        }
        return Response(PullDecisionsSerializer(page).data)


class PullRoundsView(APIView):
    @extend_schema(
        responses=PullRoundsSerializer,
        parameters=page_parameters(default=DEFAULT_LIMIT, maximum=MAX_LIMIT),
    )
    def get(self, request: Request, owner: str, name: str, number: int) -> Response:
        limit, offset = limit_offset(request, default=DEFAULT_LIMIT, maximum=MAX_LIMIT)
        pull = pull_get(owner=owner, name=name, number=number)
        page = {
            "pr": number,
            "repository": pull.repository.full_name,
            "rounds": rounds_for(pull, limit=limit, offset=offset),
        }
        return Response(PullRoundsSerializer(page).data)
