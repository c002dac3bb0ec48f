"""REST API of search: ``GET /api/search?q=...`` with filters and paging.

A key (it needs the ``search`` scope, ``core.scopes``) searches its own
agent's documents; a session what the search page shows it
(``search.selectors.documents_visible``). A query with nothing to find, or
any bad filter, is a 400 naming the parameter, with the reason.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import request_key
from evalsite.openapi import EMPTY_IS_ABSENT
from search.core.filters import (
    FLAG_PATTERN,
    KINDS,
    MAX_LIMIT,
    cursor_encode,
    parse_filters,
)
from search.core.query import MAX_QUERY_CHARS, QueryInvalid, parse
from search.models import SearchDocument
from search.selectors import Hit, documents_visible, search_page

_TEXT = {"type": "string", "maxLength": 200}
PARAMETERS = [
    OpenApiParameter(
        "q",
        {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
        required=True,
        description=(
            'Words all found; "a phrase"; prefix*; *part; -excluded; OR '
            "between alternatives."
        ),
    ),
    *(
        OpenApiParameter(name, _TEXT, extensions=EMPTY_IS_ABSENT)
        for name in ("agent", "run", "suite", "score")
    ),
    OpenApiParameter(
        "flag", {"type": "string", "pattern": FLAG_PATTERN}, extensions=EMPTY_IS_ABSENT
    ),
    OpenApiParameter(
        "kind", {"type": "string", "enum": list(KINDS)}, extensions=EMPTY_IS_ABSENT
    ),
    *(
        OpenApiParameter(
            name, {"type": "string", "format": "date-time"}, extensions=EMPTY_IS_ABSENT
        )
        for name in ("since", "until")
    ),
    OpenApiParameter("eligible", {"type": "boolean"}, extensions=EMPTY_IS_ABSENT),
    *(
        OpenApiParameter(name, {"type": "number"}, extensions=EMPTY_IS_ABSENT)
        for name in ("score_min", "score_max")
    ),
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 20},
        extensions=EMPTY_IS_ABSENT,
    ),
    OpenApiParameter("cursor", {"type": "string"}, extensions=EMPTY_IS_ABSENT),
]


class HitSerializer(serializers.Serializer):  # type: ignore[type-arg]
    kind = serializers.ChoiceField(choices=list(KINDS))
    ref = serializers.CharField()
    title = serializers.CharField()
    snippet = serializers.CharField(help_text="HTML: escaped text, <mark> only")
    url = serializers.CharField(allow_blank=True)
    agent = serializers.CharField(allow_null=True)
    runId = serializers.CharField(allow_blank=True)  # noqa: N815
    createdAt = serializers.DateTimeField()  # noqa: N815


class SearchPageSerializer(serializers.Serializer):  # type: ignore[type-arg]
    results = HitSerializer(many=True)
    nextCursor = serializers.CharField(allow_null=True)  # noqa: N815


def hit_wire(hit: Hit) -> dict[str, Any]:
    return {
        "kind": hit.kind,
        "ref": hit.ref,
        "title": hit.title,
        "snippet": hit.snippet,
        "url": hit.url,
        "agent": hit.agent,
        "runId": hit.run_id,
        "createdAt": hit.created_at.isoformat().replace("+00:00", "Z"),
    }


def visible(request: Request) -> Any:
    """The documents the caller may read (see the module docstring)."""
    key = request_key(request)
    if key is None:
        return documents_visible(user=request.user)
    if request.auth is None or request.auth is key:
        return SearchDocument.objects.none()  # a key no agent holds
    return documents_visible(user=None, agent_id=request.auth.pk)


class SearchView(APIView):
    @extend_schema(
        operation_id="search",
        parameters=PARAMETERS,
        responses=SearchPageSerializer,
        description=(
            "Documents the caller may read that the query finds, newest "
            "first, with a highlighted snippet and the page each is on."
        ),
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        problems: dict[str, list[str]] = {}
        query = None
        try:
            query = parse(params.get("q") or "")
        except QueryInvalid as exc:
            problems["q"] = [exc.reason]
        filters = parse_filters(params)
        for name, reason in filters.problems.items():
            problems[name] = [reason]
        if problems or query is None:
            raise ValidationError(problems)
        hits, after = search_page(visible(request), query, filters)
        return Response(
            {
                "results": [hit_wire(h) for h in hits],
                "nextCursor": None if after is None else cursor_encode(*after),
            }
        )
