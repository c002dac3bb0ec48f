"""REST API of the eval-store contract: benchmark packs, run summaries and
shadow recall records, for agents and CI (baseline snapshots and the gate:
``evals.api.baselines``).

Thin: the core validates every document inside the services
(``evals.services.benchmarks``, ``benchmark_records``, ``shadow_records``);
a refused document is a 400 whose ``error.fields`` maps every JSON path to
its problems, and nothing is written. Session or agent-key authentication
(the project defaults). Created documents answer 201; a document equal to
the stored one answers 200 (idempotent re-post); a different document under
an existing id answers 409; a feature that is off answers 409
``feature_disabled`` with the contract's message.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiTypes,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import request_key
from evals.api.outputs import (
    BenchmarkPackOutputSerializer,
    BenchmarkPackSavedSerializer,
    BenchmarkRunOutputSerializer,
    BenchmarkRunSavedSerializer,
    ShadowIngestSerializer,
    page_schema,
    seed_schema,
)
from evals.api.paging import (
    AFTER,
    PAGING,
    TRUE_VALUES,
    keyset_page_of,
    page_of,
    query_choice,
)
from evals.core.shadow import CheckedShadowBatch, decode_shadow_batch
from evals.models import Benchmark, Run
from evals.selectors.baselines import shadow_record_get, shadow_record_list
from evals.selectors.benchmarks import benchmark_get, benchmark_list
from evals.selectors.runs import run_get, run_list
from evals.services.benchmark_records import benchmark_run_record
from evals.services.benchmarks import MAX_SHADOW_BATCH, benchmark_pack_create
from evals.services.pack_uploads import benchmark_pack_upload
from evals.services.shadow_records import shadow_batch_ingest, shadow_records_ingest
from evalsite.openapi import EMPTY_IS_ABSENT
from evalsite.parsers import (
    BoundedJSONParser,
    PayloadTooLarge,
    parse_json_body,
    read_bounded,
)

# --- packs --------------------------------------------------------------------

PACK_PAGE = page_schema("BenchmarkPackPage", BenchmarkPackOutputSerializer)
RUN_PAGE = inline_serializer(
    "BenchmarkRunPage",
    {
        "count": serializers.IntegerField(),
        "next": serializers.CharField(
            allow_null=True, help_text="the after of the next page; null on the last"
        ),
        "results": BenchmarkRunOutputSerializer(many=True),
    },
)
MANIFEST_DOCUMENT = seed_schema(
    "manifest.v1.schema.json", "benchmark manifest", "benchmarkId"
)
RUN_DOCUMENT = seed_schema("run_summary.v1.schema.json", "run summary", "runId")
SHADOW_DOCUMENT = seed_schema(
    "shadow_record.v1.schema.json", "shadow recall record", "traceId"
)
# A stored record is answered as it was posted: the seed schema it was
# checked against is the schema of the answer.
SHADOW_PAGE = {
    "type": "object",
    "properties": {
        "count": {"type": "integer"},
        "next": {
            "type": "string",
            "nullable": True,
            "description": "the after of the next page; null on the last",
        },
        "results": {"type": "array", "items": SHADOW_DOCUMENT},
    },
    "required": ["count", "next", "results"],
}
# One record, or a batch of them (all or nothing); nothing else beside records.
SHADOW_CREATE = {
    "oneOf": [
        SHADOW_DOCUMENT,
        {
            "type": "object",
            "required": ["records"],
            "additionalProperties": False,
            "properties": {
                "records": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": MAX_SHADOW_BATCH,
                    "items": SHADOW_DOCUMENT,
                    "description": "shadow recall records, all or nothing",
                }
            },
        },
    ]
}


class BenchmarkPackListCreateView(APIView):
    parser_classes = [BoundedJSONParser, MultiPartParser, FormParser]

    @extend_schema(
        operation_id="benchmarks_packs_list",
        parameters=[
            OpenApiParameter(
                "kind",
                str,
                enum=list(Benchmark.Kind.values),
                extensions=EMPTY_IS_ABSENT,
            ),
            OpenApiParameter(
                "type",
                str,
                enum=list(Benchmark.BenchmarkType.values),
                extensions=EMPTY_IS_ABSENT,
            ),
            OpenApiParameter("tag", str, extensions=EMPTY_IS_ABSENT),
            *PAGING,
        ],
        responses=PACK_PAGE,
    )
    def get(self, request: Request) -> Response:
        """Every benchmark (packs, suites, gridworld configurations), by id."""
        benchmarks = benchmark_list(
            kind=query_choice(request, "kind", list(Benchmark.Kind.values)),
            benchmark_type=query_choice(
                request, "type", list(Benchmark.BenchmarkType.values)
            ),
            tag=request.query_params.get("tag") or None,
        )
        count, page = page_of(request, benchmarks)
        return Response(
            {
                "count": count,
                "results": BenchmarkPackOutputSerializer(
                    page, many=True, context={"request": request}
                ).data,
            }
        )

    @extend_schema(
        operation_id="benchmarks_packs_create",
        parameters=[OpenApiParameter("force", bool)],
        request={
            "application/json": MANIFEST_DOCUMENT,
            "multipart/form-data": inline_serializer(
                "PackUpload",
                {
                    "file": serializers.FileField(),
                    "force": serializers.BooleanField(required=False),
                },
            ),
        },
        responses={
            201: BenchmarkPackSavedSerializer,
            200: BenchmarkPackSavedSerializer,
        },
    )
    def post(self, request: Request) -> Response:
        """Upload a pack: a JSON manifest body, or a multipart ``file`` (a
        manifest JSON, or a zip/tar.gz pack). ``force`` replaces a different
        pack of the same id. An invalid pack is kept for staff review
        (``error.invalidUploadId``)."""
        is_form = request.content_type.startswith(
            ("multipart/", "application/x-www-form")
        )
        # A JSON body is the manifest itself, so force only comes from the
        # query string there (a "force" key would be a manifest problem).
        raw_force = request.query_params.get("force") or (
            _form_value(request, "force") if is_form else ""
        )
        force = raw_force.lower() in TRUE_VALUES
        if is_form:
            upload = request.FILES.get("file")
            if upload is None:
                raise ValidationError({"file": ["a pack file is required."]})
            if upload.size > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
                raise PayloadTooLarge()
            result = benchmark_pack_upload(
                source=upload,
                filename=upload.name or "",
                user=request.user,
                key=request_key(request),
                force=force,
            )
        else:
            result = benchmark_pack_create(
                document=request.data,
                force=force,
                user=request.user,
                key=request_key(request),
                keep_invalid=True,
            )
        body = BenchmarkPackSavedSerializer(
            result.benchmark,
            context={"request": request, "detail": True, "outcome": result.outcome},
        ).data
        code = status.HTTP_201_CREATED if result.created else status.HTTP_200_OK
        return Response(body, code)


def _form_value(request: Request, name: str) -> str:
    data = request.data
    value = data.get(name, "") if hasattr(data, "get") else ""
    return str(value)


class BenchmarkPackDetailView(APIView):
    @extend_schema(
        operation_id="benchmarks_packs_retrieve",
        responses=BenchmarkPackOutputSerializer,
    )
    def get(self, request: Request, benchmark_id: str) -> Response:
        """One benchmark with its manifest and the names of its extra files."""
        benchmark = benchmark_get(benchmark_id=benchmark_id)
        return Response(
            BenchmarkPackOutputSerializer(
                benchmark, context={"request": request, "detail": True}
            ).data
        )


# --- runs ---------------------------------------------------------------------


class BenchmarkRunListCreateView(APIView):
    @extend_schema(
        operation_id="benchmarks_runs_list",
        parameters=[
            OpenApiParameter("benchmark", str, extensions=EMPTY_IS_ABSENT),
            OpenApiParameter(
                "status",
                str,
                enum=list(Run.Status.values),
                extensions=EMPTY_IS_ABSENT,
            ),
            OpenApiParameter(
                "source",
                str,
                enum=list(Run.Source.values),
                extensions=EMPTY_IS_ABSENT,
            ),
            *PAGING,
            AFTER,
        ],
        responses=RUN_PAGE,
    )
    def get(self, request: Request) -> Response:
        """Runs of every benchmark, newest first."""
        runs = run_list(
            benchmark_id=request.query_params.get("benchmark") or None,
            status=query_choice(request, "status", list(Run.Status.values)),
            source=query_choice(request, "source", list(Run.Source.values)),
        )
        count, page, following = keyset_page_of(request, runs)
        return Response(
            {
                "count": count,
                "next": following,
                "results": BenchmarkRunOutputSerializer(
                    page, many=True, context={"request": request}
                ).data,
            }
        )

    @extend_schema(
        operation_id="benchmarks_runs_create",
        request={"application/json": RUN_DOCUMENT},
        responses={201: BenchmarkRunSavedSerializer, 200: BenchmarkRunSavedSerializer},
    )
    def post(self, request: Request) -> Response:
        """Record a run summary (the eval-store contract), optionally with
        ``caseResults``.
        201 when recorded, 200 when the same summary was already there, 409
        when the runId exists with other content."""
        result = benchmark_run_record(document=request.data, user=request.user)
        body = BenchmarkRunSavedSerializer(
            result.run,
            context={"request": request, "detail": True, "created": result.created},
        ).data
        code = status.HTTP_201_CREATED if result.created else status.HTTP_200_OK
        return Response(body, code)


class BenchmarkRunDetailView(APIView):
    @extend_schema(
        operation_id="benchmarks_runs_retrieve",
        responses=BenchmarkRunOutputSerializer,
    )
    def get(self, request: Request, run_id: str) -> Response:
        """One run with its summary and case results."""
        run = run_get(run_id=run_id)
        return Response(
            BenchmarkRunOutputSerializer(
                run, context={"request": request, "detail": True}
            ).data
        )


# --- shadow records -------------------------------------------------------------


class ShadowBatchParser(BoundedJSONParser):
    """``BoundedJSONParser``, but a batch body whose every record
    ``decode_shadow_batch`` proves valid comes back as that
    ``CheckedShadowBatch`` (decoded and checked in one pass); any other body
    is parsed and checked as everywhere else, which words every refusal."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context=None):
        raw = read_bounded(stream)
        checked = decode_shadow_batch(raw)
        if checked is not None:
            return checked
        return parse_json_body(raw)


class ShadowRecordListCreateView(APIView):
    parser_classes = [ShadowBatchParser, MultiPartParser, FormParser]

    @extend_schema(
        operation_id="benchmarks_shadow_list",
        parameters=[
            OpenApiParameter(
                "day",
                OpenApiTypes.DATE,
                description="YYYY-MM-DD",
                extensions=EMPTY_IS_ABSENT,
            ),
            OpenApiParameter("sessionKey", str, extensions=EMPTY_IS_ABSENT),
            *PAGING,
            AFTER,
        ],
        responses={200: SHADOW_PAGE},
    )
    def get(self, request: Request) -> Response:
        """Shadow recall records, newest first."""
        day = request.query_params.get("day") or None
        if day is not None and not _is_day(day):
            raise ValidationError({"day": ["day must be YYYY-MM-DD."]})
        records = shadow_record_list(
            day=day, session_key=request.query_params.get("sessionKey") or None
        )
        count, page, following = keyset_page_of(
            request, records, time_field="recorded_at"
        )
        return Response(
            {
                "count": count,
                "next": following,
                "results": [r.document for r in page],
            }
        )

    @extend_schema(
        operation_id="benchmarks_shadow_create",
        request={"application/json": SHADOW_CREATE},
        responses={201: ShadowIngestSerializer, 200: ShadowIngestSerializer},
    )
    def post(self, request: Request) -> Response:
        """Record one shadow recall record, or a batch ``{"records": [...]}``
        (all or nothing). Needs shadow mode (409 ``feature_disabled``)."""
        data = request.data
        if isinstance(data, CheckedShadowBatch):
            result = shadow_batch_ingest(batch=data)
        elif isinstance(data, dict) and "records" in data:
            extra = sorted(key for key in data if key != "records")
            if extra:
                raise ValidationError(
                    {f"$.{key}": [f"unknown property: {key}"] for key in extra}
                )
            records = data["records"]
            if not isinstance(records, list):
                raise ValidationError(
                    {"$.records": ["records must be a non-empty array"]}
                )
            result = shadow_records_ingest(documents=records, batch=True)
        else:
            result = shadow_records_ingest(documents=[data], batch=False)
        code = status.HTTP_201_CREATED if result.created else status.HTTP_200_OK
        return Response(ShadowIngestSerializer(result).data, code)


def _is_day(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return len(text) == 10


class ShadowRecordDetailView(APIView):
    @extend_schema(
        operation_id="benchmarks_shadow_retrieve", responses={200: SHADOW_DOCUMENT}
    )
    def get(self, request: Request, trace_id: str) -> Response:
        """One shadow recall record as it was posted."""
        return Response(shadow_record_get(trace_id=trace_id).document)
