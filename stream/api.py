"""REST API of the cognitive stream (DRF serializers + views, thin)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


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
