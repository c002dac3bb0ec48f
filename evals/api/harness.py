"""REST API of the scenario eval harness: start runs, read runs and suites.

Thin: serializers validate the shape, ``evals.services.harness`` decides.
Session or agent-key authentication (the project defaults); anonymous
callers get 401/403 from DRF. Output keys are camelCase like the eval-store contract's.
"""

from __future__ import annotations

from pathlib import Path
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

from evals.api.outputs import (
    EvalRunDetailSerializer,
    EvalRunSerializer,
    EvalSuiteSerializer,
)
from evals.api.paging import AFTER, PAGING, limit_offset, run_cursor, run_cursor_text
from evals.core.repeats import check_reducer, shows_repeats
from evals.core.stats_input import MAX_REPEATS, StatInputError, parse_reducer
from evals.models import Run
from evals.selectors.benchmarks import suite_benchmarks
from evals.selectors.keyset_pages import beyond
from evals.selectors.runs import harness_run_list, run_get
from evals.services.harness.create import (
    DEFAULT_REDUCER,
    DEFAULT_REPEATS,
    DEFAULT_SAMPLER,
    DEFAULT_SEED,
    MODELS,
    MODES,
    PROFILES,
    SAMPLER_NAMES,
    eval_run_create,
)
from evals.services.harness.finish import stored_run_uncertainty
from evals.services.harness.suites import suite_files, suite_resolve
from evals.services.runs.idempotency import HEADER as IDEMPOTENCY_HEADER
from evals.services.runs.idempotency import (
    holder_of,
    idempotency_of,
    run_start_once,
)
from evalsite.api import core_field
from evalsite.openapi import EMPTY_IS_ABSENT, idempotency_key_parameter

# The names the reducer parser accepts (k from 1 to 100), stated in the schema
# so that a client (and schemathesis) knows them before asking.
REDUCER_PATTERN = (
    r"^(mean|majority|max|pass_at_([1-9][0-9]?|100)|pass\^([1-9][0-9]?|100))$"
)


@extend_schema_field({"type": "string", "pattern": REDUCER_PATTERN})
class ReducerField(serializers.CharField):
    """A reducer's name; its check (with its message) is the parser's."""


class EvalRunCreateInputSerializer(serializers.Serializer):
    suite = serializers.CharField(
        max_length=500,
        help_text="a shipped suite (`smoke`, `idle-v1.jsonl`) or a path "
        "relative to the suites directory",
    )
    profile = serializers.ChoiceField(choices=PROFILES)
    mode = serializers.ChoiceField(choices=MODES)
    model = serializers.ChoiceField(choices=MODELS)
    script = serializers.CharField(
        max_length=500,
        required=False,
        help_text="scripted outputs under the suites directory "
        "(default: <suite>.script.jsonl)",
    )
    sampler = serializers.ChoiceField(
        choices=SAMPLER_NAMES, required=False, default=DEFAULT_SAMPLER
    )
    seed = serializers.IntegerField(
        required=False, default=DEFAULT_SEED, min_value=0, max_value=2**31 - 1
    )
    repeats = serializers.IntegerField(
        required=False,
        default=DEFAULT_REPEATS,
        min_value=1,
        max_value=MAX_REPEATS,
        help_text="epochs per scenario; each is its own case "
        "`<scenario>#<epoch>` with its own seed (default 1)",
    )
    reducer = ReducerField(
        required=False,
        default=DEFAULT_REDUCER,
        max_length=20,
        help_text="how a scenario's epochs become one value: mean (default), "
        "majority, max, pass_at_<k>, pass^<k>",
    )

    # Resolved while the other fields validate, so an unknown suite is
    # reported together with every other problem of the request.
    def validate_suite(self, value: str) -> Path:
        return core_field(lambda: suite_resolve(value))

    def validate_script(self, value: str) -> Path:
        return core_field(lambda: suite_resolve(value, field="script"))

    def validate_reducer(self, value: str) -> str:
        try:
            return parse_reducer(value).name
        except StatInputError as exc:
            raise serializers.ValidationError([exc.message]) from None

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            check_reducer(attrs["reducer"], attrs["repeats"])
        except StatInputError as exc:
            raise ValidationError({"reducer": [exc.message]}) from None
        return attrs


RUN_FILTERS = [
    OpenApiParameter(
        "suite", str, description="suite id (file stem)", extensions=EMPTY_IS_ABSENT
    ),
    OpenApiParameter(
        "status", str, enum=list(Run.Status.values), extensions=EMPTY_IS_ABSENT
    ),
    OpenApiParameter("verdict", str, enum=["pass", "fail"], extensions=EMPTY_IS_ABSENT),
    *PAGING,
    AFTER,
]


class EvalRunListCreateView(APIView):
    @extend_schema(
        operation_id="evals_runs_list",
        parameters=RUN_FILTERS,
        responses=inline_serializer(
            "EvalRunList",
            {
                "count": serializers.IntegerField(),
                "next": serializers.CharField(
                    allow_null=True, help_text="the after of the next page"
                ),
                "results": EvalRunSerializer(many=True),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        """Harness runs, newest first; filter by suite, status and verdict."""
        # Every bad parameter is reported at once.
        problems: dict[str, Any] = {}
        status_filter = request.query_params.get("status") or None
        if status_filter and status_filter not in Run.Status.values:
            problems["status"] = [f"unknown status {status_filter!r}."]
        verdict = request.query_params.get("verdict") or None
        if verdict not in (None, "pass", "fail"):
            problems["verdict"] = ["verdict must be pass or fail."]
        after = None
        for read in (limit_offset, run_cursor):
            try:
                found = read(request)
            except ValidationError as exc:
                problems.update(exc.detail if isinstance(exc.detail, dict) else {})
                continue
            if read is limit_offset:
                limit, offset = found
            else:
                after = found
        if problems:
            raise ValidationError(problems)
        runs = harness_run_list(
            suite=request.query_params.get("suite") or None,
            status=status_filter,
            verdict=verdict,
        )
        count = runs.count()
        if after is not None:
            # Keyset: the runs after the last of the page before, newest first.
            when, pk = after
            runs = beyond(runs, "started_at", when, pk, newer=False)
        page = list(runs[offset : offset + limit + 1])
        more = len(page) > limit
        page = page[:limit]
        return Response(
            {
                "count": count,
                # The ``after`` of the next page; null on the last.
                "next": run_cursor_text(page[-1].started_at, page[-1].pk)
                if more
                else None,
                "results": EvalRunSerializer(
                    page, many=True, context={"request": request}
                ).data,
            }
        )

    @extend_schema(
        operation_id="evals_runs_create",
        request=EvalRunCreateInputSerializer,
        parameters=[idempotency_key_parameter()],
        responses={202: EvalRunSerializer},
    )
    def post(self, request: Request) -> Response:
        """Start a run of a suite; 202 with the queued run. With an
        ``Idempotency-Key`` header a retry answers the first run again
        (``Idempotent-Replayed: true``) instead of starting another."""
        idempotency = idempotency_of(
            header=request.headers.get(IDEMPOTENCY_HEADER),
            holder=holder_of(request.user, request.auth),
            body=request.data,
        )
        serializer = EvalRunCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        run, replayed = run_start_once(
            idempotency,
            lambda: eval_run_create(
                suite_path=data["suite"],
                profile=data["profile"],
                mode=data["mode"],
                model=data["model"],
                script_path=data.get("script"),
                sampler=data["sampler"],
                seed=data["seed"],
                repeats=data["repeats"],
                reducer=data["reducer"],
                user=request.user,
                started_via="api",
                idempotency=idempotency,
            ),
        )
        response = Response(
            EvalRunSerializer(run, context={"request": request}).data,
            status.HTTP_202_ACCEPTED,
        )
        if replayed:
            response["Idempotent-Replayed"] = "true"
        return response


class EvalRunDetailView(APIView):
    @extend_schema(
        operation_id="evals_runs_retrieve",
        parameters=[
            OpenApiParameter(
                "uncertainty",
                bool,
                description="add `uncertainty` (each figure with its 95% "
                "interval) to a run made without repeats; a run made with "
                "repeats or a reducer always has it",
                extensions=EMPTY_IS_ABSENT,
            )
        ],
        responses=EvalRunDetailSerializer,
    )
    def get(self, request: Request, run_id: str) -> Response:
        """One run: status, progress, metrics and verdict (and, with repeats
        or when asked, each figure with its uncertainty)."""
        asked = request.query_params.get("uncertainty") or "false"
        if asked not in ("true", "false"):
            raise ValidationError(
                {"uncertainty": ["uncertainty must be true or false."]}
            )
        run = run_get(run_id=run_id)
        context: dict[str, Any] = {"request": request}
        if asked == "true" or shows_repeats(run.config):
            context["uncertainty"] = stored_run_uncertainty(run)
        return Response(EvalRunDetailSerializer(run, context=context).data)


class EvalSuiteListView(APIView):
    @extend_schema(
        operation_id="evals_suites_list",
        responses=inline_serializer(
            "EvalSuiteList", {"results": EvalSuiteSerializer(many=True)}
        ),
    )
    def get(self, request: Request) -> Response:
        """Suites on disk now (line count, sha256, validity) with the versions
        runs have seen."""
        versions = {b.benchmark_id: b.suite_versions.all() for b in suite_benchmarks()}
        return Response(
            {
                "results": EvalSuiteSerializer(
                    suite_files(), many=True, context={"versions": versions}
                ).data
            }
        )
