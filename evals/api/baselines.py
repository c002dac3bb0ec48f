"""REST API of baseline snapshots and the stored-baseline gate (the eval-store
contract).

Thin, like ``evals.api.benchmarks``: the services validate and decide.
"""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import request_key
from evals.api.outputs import (
    BaselineSnapshotOutputSerializer,
    BaselineSnapshotSavedSerializer,
    page_schema,
    seed_schema,
)
from evals.api.paging import PAGING, page_of
from evals.core.format_rules import SAFE_SEGMENT_MAX_CHARS
from evals.core.gate_report import verdict_to_json, verdict_to_markdown
from evals.selectors.baselines import snapshot_get, snapshot_list
from evals.services.baselines import baseline_snapshot_create, baseline_snapshot_store
from evals.services.benchmark_reports import baseline_delta_report
from evalsite.openapi import EMPTY_IS_ABSENT


class BaselineCreateInputSerializer(serializers.Serializer):
    snapshotId = serializers.CharField(max_length=200)  # noqa: N815 (wire name)
    notes = serializers.CharField(required=False, allow_blank=True, max_length=5000)


# Snapshot the latest runs now ({"snapshotId", "notes"?}, nothing else), or
# store a whole snapshot document.
BASELINE_CREATE = {
    "oneOf": [
        {
            "type": "object",
            "required": ["snapshotId"],
            "additionalProperties": False,
            "properties": {
                "snapshotId": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": SAFE_SEGMENT_MAX_CHARS,
                    "pattern": "\\S",
                },
                "notes": {"type": "string", "maxLength": 5000},
            },
        },
        seed_schema(
            "baseline_snapshot.v1.schema.json", "baseline snapshot", "snapshotId"
        ),
    ]
}


class BaselineSnapshotListCreateView(APIView):
    @extend_schema(
        operation_id="benchmarks_baselines_list",
        parameters=PAGING,
        responses=page_schema("BaselineSnapshotPage", BaselineSnapshotOutputSerializer),
    )
    def get(self, request: Request) -> Response:
        """Baseline snapshots, newest first."""
        count, page = page_of(request, snapshot_list())
        return Response(
            {
                "count": count,
                "results": BaselineSnapshotOutputSerializer(
                    page, many=True, context={"request": request}
                ).data,
            }
        )

    @extend_schema(
        operation_id="benchmarks_baselines_create",
        request={"application/json": BASELINE_CREATE},
        responses={
            201: BaselineSnapshotSavedSerializer,
            200: BaselineSnapshotSavedSerializer,
        },
    )
    def post(self, request: Request) -> Response:
        """Store a snapshot document, or ``{"snapshotId", "notes"?}`` to
        snapshot the latest completed run of every benchmark now (replacing
        a snapshot of that id). Needs the baseline-snapshots flag."""
        data = request.data
        if isinstance(data, dict) and set(data) <= {"snapshotId", "notes"}:
            serializer = BaselineCreateInputSerializer(data=data)
            serializer.is_valid(raise_exception=True)
            result = baseline_snapshot_create(
                snapshot_id=serializer.validated_data["snapshotId"],
                notes=serializer.validated_data.get("notes") or None,
                user=request.user,
                key=request_key(request),
            )
        else:
            result = baseline_snapshot_store(
                document=data, user=request.user, key=request_key(request)
            )
        body = BaselineSnapshotSavedSerializer(
            result.snapshot,
            context={"request": request, "detail": True, "outcome": result.outcome},
        ).data
        code = (
            status.HTTP_201_CREATED
            if result.outcome == "created"
            else status.HTTP_200_OK
        )
        return Response(body, code)


class BaselineSnapshotDetailView(APIView):
    @extend_schema(
        operation_id="benchmarks_baselines_retrieve",
        responses=BaselineSnapshotOutputSerializer,
    )
    def get(self, request: Request, snapshot_id: str) -> Response:
        """One snapshot with its document."""
        row = snapshot_get(snapshot_id=snapshot_id)
        return Response(
            BaselineSnapshotOutputSerializer(
                row, context={"request": request, "detail": True}
            ).data
        )


class BenchmarkGateView(APIView):
    @extend_schema(
        operation_id="benchmarks_gate_retrieve",
        parameters=[
            OpenApiParameter(
                "snapshot", {"type": "string", "minLength": 1}, required=True
            ),
            OpenApiParameter(
                "minCases",
                {"type": "integer", "minimum": 1},
                description="judge only benchmarks with at least this many cases",
                extensions=EMPTY_IS_ABSENT,
            ),
        ],
        responses=inline_serializer(
            "GateVerdict",
            {
                "passed": serializers.BooleanField(),
                "regressions": serializers.ListField(),
                "markdown": serializers.CharField(),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        """The stored baseline ``snapshot`` against the latest completed run
        of every benchmark: the gate's JSON verdict plus its markdown report.
        Needs the delta-reporter flag."""
        snapshot_id = request.query_params.get("snapshot") or ""
        if not snapshot_id:
            raise ValidationError({"snapshot": ["snapshot is required."]})
        raw = request.query_params.get("minCases") or ""
        min_cases = None
        if raw:
            try:
                min_cases = int(raw)
            except ValueError:
                min_cases = 0
            if min_cases < 1:
                raise ValidationError({"minCases": ["minCases must be at least 1."]})
        verdict = baseline_delta_report(snapshot_id=snapshot_id, min_cases=min_cases)
        body = verdict_to_json(verdict)
        body["markdown"] = verdict_to_markdown(verdict)
        return Response(body)
