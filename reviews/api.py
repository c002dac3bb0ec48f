"""REST API of human scores (scope ``reviews`` for keys).

- ``GET /api/reviews/configs``: the current version of every score config;
- ``GET /api/reviews/scores``: scores the caller may read, newest first,
  filtered by subject (``kind``, ``ref``), ``run_id`` and ``config`` (a
  name), paged by an opaque keyset ``cursor``;
- ``POST /api/reviews/scores``: give a score
  (``{"config", "kind", "ref", "value", "comment"?}``): 201 with the score;
  the same giver posting again for the same subject and config edits it
  (200) and keeps the old value in its history;
- ``GET /api/reviews/scores/<id>``: one score with its history.

Who reads and scores what is ``reviews.selectors``: a key its own agent's
subjects (a key no agent holds: subjects of no agent); a person what their
pages show them. A score one may not read answers 404, as one that does not
exist; scoring a subject one may not see answers 403. Every bad field is a
400 naming it, and nothing is stored.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import request_key
from core.errors import Forbidden, NotFound, SchemaInvalid, SchemaProblem
from evalsite import paging
from evalsite.openapi import EMPTY_IS_ABSENT
from reviews.core.values import NAME
from reviews.models import Score, ScoreConfig, Subject
from reviews.selectors import scores_visible, subject_allowed
from reviews.services.configs import (
    attachments_by_name,
    attachments_of,
    config_current,
    configs_current,
)
from reviews.services.scores import (
    MAX_COMMENT_CHARS,
    MAX_REF_CHARS,
    Giver,
    comment_check,
    score_give,
    score_history,
    score_value,
    subject_find,
    value_read,
)

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
MAX_ID = 2**63 - 1
MAX_CURSOR_CHARS = 40
CURSOR_PATTERN = r"^[A-Za-z0-9_-]+$"
NOT_A_CURSOR = "not a cursor this API gave out"
TEXT_FILTERS = {"ref": MAX_REF_CHARS, "run_id": 200, "config": 64}
VALUE_SCHEMA = {"oneOf": [{"type": "number"}, {"type": "string"}, {"type": "boolean"}]}


class ConfigOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.IntegerField()
    kind = serializers.CharField()
    minValue = serializers.FloatField(source="min_value", allow_null=True)  # noqa: N815
    maxValue = serializers.FloatField(source="max_value", allow_null=True)  # noqa: N815
    labels = serializers.ListField(child=serializers.CharField())
    description = serializers.CharField()
    rubric = serializers.CharField()
    benchmarks = serializers.SerializerMethodField()

    def get_benchmarks(self, config: ScoreConfig) -> list[str]:
        attached = self.context.get("attached")
        if attached is None:
            return attachments_of(config.name)
        return list(attached.get(config.name, []))


def _giver(score: Any) -> dict[str, Any]:
    return {
        "user": score.author.get_username() if score.author_id else None,
        "key": score.api_key.name if score.api_key_id else None,
    }


def score_output(score: Score, *, history: bool = False) -> dict[str, Any]:
    """A score as the API answers it."""
    body: dict[str, Any] = {
        "id": score.pk,
        "config": score.config.name,
        "configVersion": score.config.version,
        "kind": score.kind,
        "ref": score.ref,
        "runId": score.run_id or None,
        "caseId": score.case_id or None,
        "value": score_value(score),
        "comment": score.comment,
        "source": score.source,
        "givenBy": _giver(score),
        "createdAt": score.created_at.isoformat(),
        "updatedAt": score.updated_at.isoformat(),
    }
    if history:
        body["history"] = [
            {
                "value": score_value(revision),  # same value columns
                "comment": revision.comment,
                "changedBy": {
                    "user": revision.changed_by.get_username()
                    if revision.changed_by_id
                    else None,
                    "key": revision.changed_by_key.name
                    if revision.changed_by_key_id
                    else None,
                },
                "changedAt": revision.changed_at.isoformat(),
            }
            for revision in score_history(score)
        ]
    return body


@extend_schema_field(VALUE_SCHEMA)
class ValueField(serializers.JSONField):
    """A score's value: a number, a label or a boolean, by the config."""


class GiverSerializer(serializers.Serializer):
    user = serializers.CharField(allow_null=True, help_text="the person's name")
    key = serializers.CharField(allow_null=True, help_text="the API key's name")


class ScoreOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    config = serializers.CharField()
    configVersion = serializers.IntegerField()  # noqa: N815 (wire name)
    kind = serializers.CharField(help_text="one of " + ", ".join(Subject.values))
    ref = serializers.CharField()
    runId = serializers.CharField(allow_null=True)  # noqa: N815
    caseId = serializers.CharField(allow_null=True)  # noqa: N815
    value = ValueField()
    comment = serializers.CharField(allow_blank=True)
    source = serializers.CharField(
        help_text="review (given in a queue) or api (posted over REST)"
    )
    givenBy = GiverSerializer()  # noqa: N815
    createdAt = serializers.DateTimeField()  # noqa: N815
    updatedAt = serializers.DateTimeField()  # noqa: N815


class RevisionOutputSerializer(serializers.Serializer):
    value = ValueField()
    comment = serializers.CharField(allow_blank=True)
    changedBy = GiverSerializer()  # noqa: N815
    changedAt = serializers.DateTimeField()  # noqa: N815


SCORE = ScoreOutputSerializer
SCORE_DETAIL = inline_serializer(
    "ScoreDetail",
    {
        **{name: field for name, field in ScoreOutputSerializer().fields.items()},
        "history": RevisionOutputSerializer(
            many=True, help_text="the values before each edit, newest first"
        ),
    },
)
SCORE_PAGE = inline_serializer(
    "ScorePage",
    {
        "results": ScoreOutputSerializer(many=True),
        "nextCursor": serializers.CharField(
            allow_null=True,
            help_text="pass as cursor for the next page; null on the last one",
        ),
    },
)
SCORE_INPUT = {
    "type": "object",
    "required": ["config", "kind", "ref", "value"],
    "properties": {
        "config": {"type": "string", "pattern": NAME.pattern, "maxLength": 64},
        "kind": {"type": "string", "enum": list(Subject.values)},
        "ref": {"type": "string", "minLength": 1, "maxLength": MAX_REF_CHARS},
        "value": VALUE_SCHEMA,
        "comment": {"type": "string", "maxLength": MAX_COMMENT_CHARS},
    },
}


def _text_parameter(name: str, maximum: int, description: str) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        {"type": "string", "minLength": 1, "maxLength": maximum},
        description=description,
        extensions=EMPTY_IS_ABSENT,
    )


SCORE_FILTERS = [
    OpenApiParameter(
        "kind", str, enum=list(Subject.values), extensions=EMPTY_IS_ABSENT
    ),
    _text_parameter("ref", MAX_REF_CHARS, "the subject's ref (with kind)"),
    _text_parameter("run_id", 200, "an eval run's id"),
    _text_parameter("config", 64, "a score config's name"),
    paging.limit_parameter(default=DEFAULT_LIMIT, maximum=MAX_LIMIT),
    OpenApiParameter(
        "cursor",
        {"type": "string", "pattern": CURSOR_PATTERN, "maxLength": MAX_CURSOR_CHARS},
        description="the nextCursor of the previous page",
        extensions=EMPTY_IS_ABSENT,
    ),
]


def cursor_encode(pk: int) -> str:
    return base64.urlsafe_b64encode(f"s{pk}".encode()).decode().rstrip("=")


def cursor_decode(text: str) -> int:
    """The score id a cursor continues after; ``ValueError`` otherwise."""
    if len(text) > MAX_CURSOR_CHARS or not re.match(CURSOR_PATTERN, text):
        raise ValueError(NOT_A_CURSOR)
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise ValueError(NOT_A_CURSOR) from None
    if not raw.startswith("s") or not raw[1:].isdigit():
        raise ValueError(NOT_A_CURSOR)
    pk = int(raw[1:])
    if not 0 < pk <= MAX_ID:
        raise ValueError(NOT_A_CURSOR)
    return pk


def _visible(request: Request) -> Any:
    key = request_key(request)
    return scores_visible(user=request.user, key=key, auth=request.auth)


def _list_filters(request: Request) -> tuple[dict[str, Any], int, int | None]:
    params = request.query_params
    found: dict[str, Any] = {}
    problems: dict[str, list[str]] = {}
    kind = params.get("kind") or None
    if kind is not None:
        if kind not in Subject.values:
            problems["kind"] = [f"kind must be one of {', '.join(Subject.values)}."]
        else:
            found["kind"] = kind
    for name, maximum in TEXT_FILTERS.items():
        value = params.get(name) or None
        if value is None:
            continue
        if len(value) > maximum:
            problems[name] = [f"{name} must be at most {maximum} characters."]
        else:
            found["config__name" if name == "config" else name] = value
    limit = DEFAULT_LIMIT
    raw_limit = params.get("limit") or None
    if raw_limit is not None:
        if not re.fullmatch(r"-?[0-9]+", raw_limit):
            problems["limit"] = ["limit must be an integer."]
        elif not 1 <= int(raw_limit) <= MAX_LIMIT:
            problems["limit"] = [f"limit must be between 1 and {MAX_LIMIT}."]
        else:
            limit = int(raw_limit)
    after = None
    cursor = params.get("cursor") or None
    if cursor is not None:
        try:
            after = cursor_decode(cursor)
        except ValueError:
            problems["cursor"] = ["cursor must be a nextCursor this API gave out."]
    if problems:
        raise ValidationError(problems)
    return found, limit, after


class ConfigListView(APIView):
    @extend_schema(
        operation_id="reviews_configs_list",
        responses=inline_serializer(
            "ScoreConfigList", {"results": ConfigOutputSerializer(many=True)}
        ),
        description="The current version of every score config, by name.",
    )
    def get(self, request: Request) -> Response:
        configs = configs_current()
        context = {"attached": attachments_by_name()}
        return Response(
            {
                "results": ConfigOutputSerializer(
                    configs, many=True, context=context
                ).data
            }
        )


def _body(request: Request) -> dict[str, Any]:
    data = request.data
    if not isinstance(data, dict):
        raise SchemaInvalid(
            "the body must be a JSON object",
            problems=[SchemaProblem("$", "invalid", "the body must be a JSON object.")],
        )
    problems: list[SchemaProblem] = []
    for name in ("config", "kind", "ref", "value"):
        if name not in data:
            problems.append(SchemaProblem(name, "required", f"{name} is needed."))
    config = data.get("config")
    if "config" in data and (not isinstance(config, str) or not 0 < len(config) <= 64):
        problems.append(
            SchemaProblem("config", "invalid", "config must be a config's name.")
        )
    if problems:
        raise SchemaInvalid("the score is not valid", problems=problems)
    return dict(data)


class ScoreListView(APIView):
    @extend_schema(
        operation_id="reviews_scores_list",
        parameters=SCORE_FILTERS,
        responses=SCORE_PAGE,
        description="Scores the caller may read, newest first.",
    )
    def get(self, request: Request) -> Response:
        filters, limit, after = _list_filters(request)
        scores = _visible(request).filter(**filters)
        if after is not None:
            scores = scores.filter(pk__lt=after)
        page = list(scores.order_by("-pk")[: limit + 1])
        more = len(page) > limit
        page = page[:limit]
        return Response(
            {
                "results": [score_output(score) for score in page],
                "nextCursor": cursor_encode(page[-1].pk) if more else None,
            }
        )

    @extend_schema(
        operation_id="reviews_scores_create",
        request={"application/json": SCORE_INPUT},
        responses={201: SCORE, 200: SCORE},
        description=(
            "Give a score (201); the same giver posting again for the same "
            "subject and config edits it (200) and keeps the old value in "
            "its history."
        ),
    )
    def post(self, request: Request) -> Response:
        data = _body(request)
        try:
            config = config_current(data["config"])
        except NotFound:
            message = f"there is no score config {data['config']!r}."
            raise SchemaInvalid(
                message, problems=[SchemaProblem("config", "unknown", message)]
            ) from None
        value = value_read(config, data["value"])
        comment = comment_check(data.get("comment"))
        kind, ref = data["kind"], data["ref"]
        subject = subject_find(kind, ref)
        key = request_key(request)
        if not subject_allowed(
            agent_id=subject.agent_id, user=request.user, key=key, auth=request.auth
        ):
            raise Forbidden(
                "you may not score this subject"
                + (": a key scores only its own agent's subjects." if key else "."),
                details={"ref": ref},
            )
        giver = Giver(api_key=key) if key is not None else Giver(user=request.user)
        score, created = score_give(
            config=config,
            subject=subject,
            kind=kind,
            ref=ref,
            value=value,
            comment=comment,
            giver=giver,
            source=Score.Source.API,
        )
        score = _visible(request).get(pk=score.pk)
        return Response(
            score_output(score),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class ScoreDetailView(APIView):
    @extend_schema(
        operation_id="reviews_scores_retrieve",
        responses=SCORE_DETAIL,
        description="One score with its history (the values before each edit).",
    )
    def get(self, request: Request, pk: int) -> Response:
        score = _visible(request).filter(pk=pk).first() if 0 < pk <= MAX_ID else None
        if score is None:
            raise NotFound(f"no score {pk}", details={"id": pk})
        return Response(score_output(score, history=True))
