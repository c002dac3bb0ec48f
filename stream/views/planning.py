"""HTML pages of planning: an agent's tasks and one task with its history."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from stream.core.planning import TaskStatus
from stream.models import Agent, Task
from stream.selectors import agent_list_visible, task_list
from stream.services.planning_task_store import (
    planning_state_get,
    task_origin,
    task_stall_class,
)

TASKS_ON_PAGE = 200


@dataclass(frozen=True, slots=True)
class TaskRow:
    task: Task
    stall_class: str | None
    origin: str


def _visible_agent(request: HttpRequest, name: str) -> Agent:
    agent = agent_list_visible(user=request.user).filter(name=name).first()
    if agent is None:
        raise Http404("no such agent")
    return agent


def _rows(agent: Agent, tasks: list[Task]) -> list[TaskRow]:
    now = timezone.now()
    seen = planning_state_get(agent=agent).executor_seen_at
    rows = []
    for task in tasks:
        stall = task_stall_class(task, now=now, executor_seen_at=seen)
        origin = task_origin(task)
        rows.append(
            TaskRow(
                task=task,
                stall_class=None if stall is None else stall.value,
                origin="—" if origin is None else f"{origin.kind.value}/{origin.name}",
            )
        )
    return rows


@login_required
def agent_tasks(request: HttpRequest, name: str) -> HttpResponse:
    agent = _visible_agent(request, name)
    status = request.GET.get("status") or ""
    if status not in {s.value for s in TaskStatus}:
        status = ""
    tasks = list(task_list(agent=agent, status=status or None)[:TASKS_ON_PAGE])
    context = {
        "agent": agent,
        "rows": _rows(agent, tasks),
        "status": status,
        "statuses": [s.value for s in TaskStatus],
        "state": planning_state_get(agent=agent),
    }
    return render(request, "stream/task_list.html", context)


@login_required
def task_detail(request: HttpRequest, name: str, pk: int) -> HttpResponse:
    agent = _visible_agent(request, name)
    task = task_list(agent=agent).filter(pk=pk).first()
    if task is None:
        raise Http404("no such task")
    (row,) = _rows(agent, [task])
    context = {
        "agent": agent,
        "row": row,
        "task": task,
        "thought": task.thought,
        "events": list(task.events.all()),
        "metadata_json": json.dumps(task.metadata, indent=2, sort_keys=True),
        "thought_metadata_json": json.dumps(task.thought.metadata, indent=2)
        if task.thought
        else "",
    }
    return render(request, "stream/task_detail.html", context)
