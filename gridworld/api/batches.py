"""REST API of the gridworld: create and read batches, episodes and receipts,
verify an uploaded receipt.

Thin: ``gridworld.services`` decides. A batch config's field names are
snake_case (the run receipt's ``config`` fixes them: ``map_text``,
``drift_period``, ``max_steps``, ``lane_size``); the camelCase spellings
``mapText``, ``driftPeriod``, ``maxSteps``, ``laneSize`` are accepted too
(one spelling per field; a problem names the snake_case field). A bad
batch config answers 400 with every field and its reason
(``{"error": {"code", "message", "fields"}}``), nothing stored. Session
or agent-key authentication (project defaults).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evals.facade import MAX_REPEATS
from evalsite.openapi import REFUSES_UNKNOWN_FIELDS, idempotency_key_parameter
from evalsite.paging import limit_offset, page_parameters
from evalsite.parsers import BoundedJSONParser, parse_json_body, read_bounded
from gridworld.api.outputs import (
    GridworldBatchDetailOutputSerializer,
    GridworldBatchOutputSerializer,
    GridworldEpisodeDetailOutputSerializer,
    GridworldEpisodeOutputSerializer,
    GridworldVerificationOutputSerializer,
    page_schema,
)
from gridworld.core.config import (
    MAX_BUDGET,
    MAX_EPISODES,
    MAX_LANE_SIZE,
    MAX_SEED,
    MAX_STEPS,
)
from gridworld.core.governor import GOVERNOR_KINDS
from gridworld.core.proposers import PROPOSER_KINDS
from gridworld.core.receipt_json import read_receipt_json
from gridworld.models import EpisodeBatch
from gridworld.selectors import (
    batch_get,
    batch_list,
    batch_stats,
    episode_get,
    episode_list,
)
from gridworld.services.batches import IDEMPOTENCY_HEADER, batch_start_once
from gridworld.services.episodes import (
    receipt_download,
    receipt_verify,
    stored_receipt,
)

MAX_LIMIT = 500
DEFAULT_LIMIT = 100


PAGE = page_parameters(default=DEFAULT_LIMIT, maximum=MAX_LIMIT)
BATCH_PAGE = page_schema("GridworldBatchPage", GridworldBatchOutputSerializer)
EPISODE_PAGE = page_schema("GridworldEpisodePage", GridworldEpisodeOutputSerializer)


def batch_answer(batch: EpisodeBatch, request: Request) -> dict[str, Any]:
    return GridworldBatchOutputSerializer(batch, context={"request": request}).data


class BatchListCreateView(APIView):
    @extend_schema(
        operation_id="gridworld_batches_list", parameters=PAGE, responses=BATCH_PAGE
    )
    def get(self, request: Request) -> Response:
        """Episode batches, newest first."""
        limit, offset = limit_offset(request, default=DEFAULT_LIMIT, maximum=MAX_LIMIT)
        batches = batch_list()
        page = batches[offset : offset + limit]
        return Response(
            {
                "count": batches.count(),
                "results": [batch_answer(b, request) for b in page],
            }
        )

    @extend_schema(
        operation_id="gridworld_batches_create",
        request=inline_serializer(
            "GridworldBatchCreate",
            {
                "map": serializers.CharField(
                    help_text="simple|maze|hazard, generated:<seed>:<W>x<H>, or a "
                    "name for map_text"
                ),
                "map_text": serializers.CharField(
                    required=False, help_text="also accepted as mapText"
                ),
                "episodes": serializers.IntegerField(
                    min_value=1, max_value=MAX_EPISODES
                ),
                "proposer": serializers.ChoiceField(
                    choices=sorted(PROPOSER_KINDS), required=False
                ),
                "governor": serializers.ChoiceField(
                    choices=sorted(GOVERNOR_KINDS), required=False
                ),
                "seed": serializers.IntegerField(
                    required=False,
                    min_value=0,
                    max_value=MAX_SEED - 1,
                    help_text="seed + episodes must stay < 2^31",
                ),
                "drift_period": serializers.IntegerField(
                    required=False,
                    min_value=0,
                    max_value=MAX_STEPS,
                    help_text="also accepted as driftPeriod",
                ),
                "max_steps": serializers.IntegerField(
                    required=False,
                    min_value=1,
                    max_value=MAX_STEPS,
                    help_text="also accepted as maxSteps",
                ),
                "budget": serializers.IntegerField(
                    required=False, min_value=1, max_value=MAX_BUDGET
                ),
                "lane_size": serializers.IntegerField(
                    required=False,
                    min_value=1,
                    max_value=MAX_LANE_SIZE,
                    help_text="also accepted as laneSize",
                ),
                "repeats": serializers.IntegerField(
                    required=False,
                    min_value=1,
                    max_value=MAX_REPEATS,
                    help_text="epochs of the batch's episodes (default 1): the "
                    "batch plays episodes x repeats episodes, each with its own "
                    "seed; cases episode-<i>#<epoch>",
                ),
            },
        ),
        parameters=[idempotency_key_parameter()],
        extensions=REFUSES_UNKNOWN_FIELDS,
        responses={202: GridworldBatchOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        """Start a batch on the workers; 202 with the queued batch. With an
        ``Idempotency-Key`` header a retry answers the first batch again."""
        batch, replayed = batch_start_once(
            config=request.data,
            user=request.user,
            auth=request.auth,
            idempotency_header=request.headers.get(IDEMPOTENCY_HEADER),
        )
        response = Response(batch_answer(batch, request), status.HTTP_202_ACCEPTED)
        if replayed:
            response["Idempotent-Replayed"] = "true"
        return response


class BatchDetailView(APIView):
    @extend_schema(
        operation_id="gridworld_batches_retrieve",
        responses=GridworldBatchDetailOutputSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        """One batch: status, progress, metrics, verdict, and once it has
        finished its ``figures`` (IQM and mean of each episode metric with
        stratified bootstrap 95% intervals)."""
        batch = batch_get(pk)
        context = {"request": request, "figures": batch_stats(batch)}
        return Response(
            GridworldBatchDetailOutputSerializer(batch, context=context).data
        )


class EpisodeListView(APIView):
    @extend_schema(
        operation_id="gridworld_episodes_list",
        parameters=PAGE,
        responses=EPISODE_PAGE,
    )
    def get(self, request: Request, pk: int) -> Response:
        """A batch's stored episodes, in episode order."""
        limit, offset = limit_offset(request, default=DEFAULT_LIMIT, maximum=MAX_LIMIT)
        episodes = episode_list(batch_get(pk))
        page = episodes[offset : offset + limit]
        return Response(
            {
                "count": episodes.count(),
                "results": GridworldEpisodeOutputSerializer(page, many=True).data,
            }
        )


class EpisodeDetailView(APIView):
    @extend_schema(
        operation_id="gridworld_episodes_retrieve",
        responses=GridworldEpisodeDetailOutputSerializer,
    )
    def get(self, request: Request, pk: int, index: int) -> Response:
        """One episode: seed, metrics, the digest of its receipt as stored
        now and whether that is still the digest recorded with it."""
        episode = episode_get(pk, index)
        stored = stored_receipt(episode)
        return Response(
            GridworldEpisodeDetailOutputSerializer(
                episode, context={"stored": stored}
            ).data
        )


class EpisodeReceiptView(APIView):
    @extend_schema(operation_id="gridworld_receipt_retrieve", responses={200: dict})
    def get(self, request: Request, pk: int, index: int) -> HttpResponse:
        """The episode's run receipt, byte for byte as stored (canonical JSON);
        409 ``receipt_damaged`` when the stored bytes no longer read as a receipt."""
        stored = receipt_download(episode_get(pk, index))
        response = HttpResponse(stored.data, content_type="application/json")
        response["Receipt-Status"] = stored.status
        response["Content-Disposition"] = (
            f'attachment; filename="gridworld-{pk}-episode-{index}.json"'
        )
        return response


class ReceiptJSONParser(BoundedJSONParser):
    """The API's JSON parser, then the receipt's own reading of the same
    bytes: a key repeated in an object, a number that is infinite after
    parsing (``1e309``) or past 64 bits is a 400 naming its path."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context=None):
        raw = read_bounded(stream)
        # The receipt's reading first: its words for a receipt's numbers and
        # keys are the ones gridworld_verify prints for the same file.
        document = read_receipt_json(raw)
        parse_json_body(raw)  # every other refusal of the API's parser
        return document


class ReceiptVerifyView(APIView):
    parser_classes = [ReceiptJSONParser, MultiPartParser, FormParser]

    @extend_schema(
        operation_id="gridworld_receipt_verify",
        request={
            "application/json": {
                "type": "object",
                "description": "a gridworld run receipt",
                "required": ["config"],
                "properties": {"config": {"type": "object"}},
            }
        },
        responses=GridworldVerificationOutputSerializer,
    )
    def post(self, request: Request) -> Response:
        """Replay an uploaded run receipt (the JSON body) and report the verdict."""
        if not isinstance(request.data, dict) or "config" not in request.data:
            raise ValidationError(
                {"$": ["the body must be a gridworld run receipt (a JSON object)."]}
            )
        if not isinstance(request.data["config"], dict):
            raise ValidationError({"config": ["a receipt's config is a JSON object."]})
        verification = receipt_verify(dict(request.data))
        return Response(GridworldVerificationOutputSerializer(verification).data)
