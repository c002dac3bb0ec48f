"""Executor REST API of planning tasks: claim, progress, complete, fail, list.

Thin: validate, call one service, answer. Every endpoint acts for the agent
whose API key authenticated the call. Illegal transitions come back as 409
with the task's current state (``error.current``), unknown tasks as 404.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import NotFound
from evalsite.openapi import EMPTY_IS_ABSENT
from evalsite.paging import limit_parameter
from stream.api.cognitive_stream import IsAgent, _limit
from stream.core.planning import TaskStatus
from stream.selectors import task_list
from stream.services.planning_task_executor import (
    task_claim,
    task_complete,
    task_fail,
    task_progress,
)
from stream.services.planning_task_store import (
    planning_state_get,
    task_to_wire,
    task_wire_for,
)


class TaskOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    agent = serializers.CharField()
    title = serializers.CharField()
    action = serializers.CharField()
    target = serializers.CharField()
    amount = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=[s.value for s in TaskStatus])
    progress = serializers.FloatField()
    blockedReason = serializers.CharField(allow_null=True)
    blockedAt = serializers.DateTimeField(allow_null=True)
    goalKey = serializers.CharField(allow_null=True)
    origin = serializers.DictField(allow_null=True)
    thoughtId = serializers.IntegerField(allow_null=True)
    metadata = serializers.DictField()
    claimedBy = serializers.CharField(allow_null=True)
    claimedAt = serializers.DateTimeField(allow_null=True)
    finishedAt = serializers.DateTimeField(allow_null=True)
    failureReason = serializers.CharField(allow_null=True)
    stallClass = serializers.CharField(allow_null=True)
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


EXECUTOR_HELP = "executor name; defaults to the agent's name"


class TaskClaimInputSerializer(serializers.Serializer):
    taskId = serializers.IntegerField(required=False, min_value=1)
    executor = serializers.CharField(required=False, max_length=200)


class TaskProgressInputSerializer(serializers.Serializer):
    progress = serializers.FloatField(min_value=0.0, max_value=1.0)
    blockedReason = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=200
    )
    metadata = serializers.DictField(required=False)
    executor = serializers.CharField(required=False, max_length=200)


class TaskCompleteInputSerializer(serializers.Serializer):
    result = serializers.DictField(required=False)
    executor = serializers.CharField(required=False, max_length=200)


class TaskFailInputSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500)
    executor = serializers.CharField(required=False, max_length=200)


def _executor(request: Request, data: dict[str, Any]) -> str:
    return str(data.get("executor") or request.auth.name)


def _valid(serializer_class: type[serializers.Serializer], request: Request) -> Any:
    # No body reads as {}; a body that is not an object (null, [], true) is
    # refused instead of being taken for an empty one.
    if not isinstance(request.data, Mapping):
        raise ValidationError({"$": ["the body must be a JSON object."]})
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class TaskClaimView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(
        request=TaskClaimInputSerializer,
        responses=inline_serializer(
            "TaskClaimed", {"task": TaskOutputSerializer(allow_null=True)}
        ),
        description=(
            "pending -> active for one claimant: the given taskId, else the "
            "oldest pending task; task is null when nothing is pending."
        ),
    )
    def post(self, request: Request) -> Response:
        data = _valid(TaskClaimInputSerializer, request)
        task = task_claim(
            agent=request.auth,
            executor=_executor(request, data),
            task_id=data.get("taskId"),
        )
        return Response({"task": None if task is None else task_wire_for(task)})


class TaskProgressView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(
        request=TaskProgressInputSerializer,
        responses=TaskOutputSerializer,
        description=(
            "Progress (0..1, never backwards) on an active task; blockedReason "
            "sets or (empty/null) clears a block."
        ),
    )
    def post(self, request: Request, pk: int) -> Response:
        data = _valid(TaskProgressInputSerializer, request)
        extra: dict[str, Any] = {}
        if "blockedReason" in data:
            extra["blocked_reason"] = data["blockedReason"]
        task = task_progress(
            agent=request.auth,
            task_id=pk,
            executor=_executor(request, data),
            progress=data["progress"],
            metadata=data.get("metadata"),
            **extra,
        )
        return Response(task_wire_for(task))


class TaskCompleteView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(request=TaskCompleteInputSerializer, responses=TaskOutputSerializer)
    def post(self, request: Request, pk: int) -> Response:
        data = _valid(TaskCompleteInputSerializer, request)
        task = task_complete(
            agent=request.auth,
            task_id=pk,
            executor=_executor(request, data),
            result=data.get("result"),
        )
        return Response(task_wire_for(task))


class TaskFailView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(request=TaskFailInputSerializer, responses=TaskOutputSerializer)
    def post(self, request: Request, pk: int) -> Response:
        data = _valid(TaskFailInputSerializer, request)
        task = task_fail(
            agent=request.auth,
            task_id=pk,
            executor=_executor(request, data),
            reason=data["reason"],
        )
        return Response(task_wire_for(task))


STATUS_PARAM = OpenApiParameter(
    "status",
    str,
    enum=[s.value for s in TaskStatus],
    description="filter",
    extensions=EMPTY_IS_ABSENT,
)
LIMIT_PARAM = limit_parameter(default=100, maximum=500)


class TaskListView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(
        operation_id="tasks_list",
        parameters=[STATUS_PARAM, LIMIT_PARAM],
        responses=inline_serializer(
            "TaskList",
            {
                "count": serializers.IntegerField(),
                "tasks": TaskOutputSerializer(many=True),
            },
        ),
        description="The agent's tasks, newest first, each with its stall class.",
    )
    def get(self, request: Request) -> Response:
        status = request.query_params.get("status") or None
        if status is not None and status not in {s.value for s in TaskStatus}:
            allowed = ", ".join(s.value for s in TaskStatus)
            raise ValidationError({"status": [f"status must be one of {allowed}."]})
        limit = _limit(request, default=100, maximum=500)
        tasks = list(task_list(agent=request.auth, status=status)[:limit])
        now = timezone.now()
        seen = planning_state_get(agent=request.auth).executor_seen_at
        return Response(
            {
                "count": len(tasks),
                "tasks": [
                    task_to_wire(t, now=now, executor_seen_at=seen) for t in tasks
                ],
            }
        )


class TaskDetailView(APIView):
    permission_classes = [IsAgent]

    @extend_schema(operation_id="tasks_retrieve", responses=TaskOutputSerializer)
    def get(self, request: Request, pk: int) -> Response:
        task = task_list(agent=request.auth).filter(pk=pk).first()
        if task is None:
            raise NotFound(f"no task {pk} for agent {request.auth.name}")
        return Response(task_wire_for(task))
