"""HTML pages of the cognitive stream."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from stream.core.thought_decision import MalformedGoal, decision_from_wire
from stream.models import Agent
from stream.selectors import (
    actionable_queryset,
    agent_directory,
    agent_list_visible,
    thoughts_recent,
)
from stream.services.counters import counters_get, counters_to_wire
from stream.services.retention import retention_text, thought_was_pruned
from traces.facade import agent_spend, agent_spend_figure, trace_url_for_thought

RECENT_ON_PAGE = 50
# The agent page's spend chart covers this many days.
SPEND_DAYS = 30


@login_required
def index(request: HttpRequest) -> HttpResponse:
    show_eval_agents = request.GET.get("eval_agents") == "shown"
    rows, hidden = agent_directory(
        user=request.user, include_eval_agents=show_eval_agents
    )
    return render(
        request,
        "stream/index.html",
        {
            "rows": rows,
            "hidden_eval_agents": hidden,
            "show_eval_agents": show_eval_agents,
        },
    )


def _visible_agent(request: HttpRequest, name: str) -> Agent:
    agent = agent_list_visible(user=request.user).filter(name=name).first()
    if agent is None:
        raise Http404("no such agent")
    return agent


def _stream_context(agent: Agent) -> dict[str, object]:
    actionable = list(actionable_queryset(agent).order_by("-created_at", "-pk")[:20])
    return {
        "agent": agent,
        "recent": thoughts_recent(agent=agent, limit=RECENT_ON_PAGE),
        "actionable": actionable,
        "counters": counters_to_wire(counters_get(agent=agent), now=timezone.now()),
        "queue_size": agent.thoughts.filter(processed=False).count(),
    }


@login_required
def agent_stream(request: HttpRequest, name: str) -> HttpResponse:
    agent = _visible_agent(request, name)
    spend = agent_spend(agent.pk, agent_name=agent.name, days=SPEND_DAYS)
    return render(
        request,
        "stream/agent_stream.html",
        {
            **_stream_context(agent),
            "spend": spend,
            "spend_figure": agent_spend_figure(spend),
        },
    )


@login_required
def agent_stream_live(request: HttpRequest, name: str) -> HttpResponse:
    """The live part of the page alone, polled by agent_stream.js."""
    agent = _visible_agent(request, name)
    return render(
        request, "stream/agent_stream.html#live-stream", _stream_context(agent)
    )


@login_required
def thought_detail(request: HttpRequest, name: str, pk: int) -> HttpResponse:
    """One thought in full: its text, what the pipeline decided about it,
    the tasks planning made from it and its metadata."""
    agent = _visible_agent(request, name)
    thought = agent.thoughts.filter(pk=pk).first()
    if thought is None:
        if thought_was_pruned(pk):
            # Listed a moment ago, removed by retention since: say so.
            return render(
                request,
                "stream/thought_pruned.html",
                {"agent": agent, "pk": pk, "retention": retention_text()},
                status=404,
            )
        raise Http404("no such thought")
    meta = thought.metadata if isinstance(thought.metadata, dict) else {}
    try:
        decision = decision_from_wire(
            meta,
            convert_eligible=thought.convert_eligible,
            eligibility_reason=thought.eligibility_reason,
        )
        goal, grounding = decision.goal, decision.grounding
    except MalformedGoal:
        goal, grounding = None, None
    return render(
        request,
        "stream/thought_detail.html",
        {
            "agent": agent,
            "thought": thought,
            "meta": meta,
            "goal": goal,
            "grounding": grounding,
            "tasks": list(thought.tasks.order_by("pk")),
            "eval_run_url": _eval_run_url(thought.eval_run_id),
            "trace_url": trace_url_for_thought(thought.pk),
            "metadata_json": json.dumps(thought.metadata, indent=2, sort_keys=True),
        },
    )


def _eval_run_url(run_id: str) -> str:
    """The page of the eval run a thought came from ("" for none, or for an
    id that cannot be a run page's address)."""
    if not run_id:
        return ""
    try:
        return reverse("evals:run-detail", args=[run_id])
    except NoReverseMatch:
        return ""
