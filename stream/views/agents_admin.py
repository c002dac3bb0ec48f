"""Pages to manage agents and their API keys: the agents you manage (staff:
all; anyone else: their own) with a form to make one, an agent's keys with a
form to make one, and a key's page to change its scopes, rotate it or
revoke it.

A new key is shown once, on the page the form answers with (never stored,
never cached); rotating and revoking ask first. Every change goes through
``stream.services.agents``, which writes the audit log.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts.audit import audit_origin
from accounts.models import ApiKey
from stream.models import Agent
from stream.selectors_agents import (
    agent_for_page,
    agent_key_get,
    agent_key_rows,
    agents_managed,
    key_state,
)
from stream.services.agents import (
    Actor,
    agent_create,
    agent_key_create,
    agent_key_revoke,
    agent_key_rotate,
    agent_key_scopes_set,
)
from stream.views.agents_forms import AgentCreateForm, KeyCreateForm, KeyScopesForm


def _actor(request: HttpRequest) -> Actor:
    return Actor(user=request.user, origin=audit_origin(request))


def _managed(request: HttpRequest, name: str) -> Agent:
    """The agent ``name`` if the user manages it: 404 when they cannot see
    it, 403 when they see it (a member) but do not manage it."""
    agent, may_manage = agent_for_page(user=request.user, name=name)
    if agent is None:
        raise Http404("no such agent")
    if not may_manage:
        raise PermissionDenied("only the agent's owner or staff manage its keys")
    return agent


def _agent_page(
    request: HttpRequest,
    agent: Agent,
    *,
    form: KeyCreateForm | None = None,
    new_key: str | None = None,
    new_key_row: ApiKey | None = None,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "stream/agents_detail.html",
        {
            "agent": agent,
            "rows": agent_key_rows(agent=agent),
            "form": form or KeyCreateForm(),
            "new_key": new_key,
            "new_key_row": new_key_row,
        },
        status=status,
    )


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def agents_manage(request: HttpRequest) -> HttpResponse:
    """The agents the user manages, and a form to make one (its first key is
    shown once on the agent's page the form answers with)."""
    form = AgentCreateForm(request.POST or None, user=request.user)
    created = None
    if request.method == "POST" and form.is_valid():
        try:
            created = agent_create(
                name=form.cleaned_data["name"],
                owner=form.owner_user(),
                scopes=form.cleaned_data["scopes"],
                by=_actor(request),
            )
        except IntegrityError:
            # Made by someone else between the form's check and now.
            form.add_error("name", "An agent with this name already exists.")
    if created is not None:
        return _agent_page(
            request,
            created.agent,
            new_key=created.api_key,
            new_key_row=created.agent.api_key,
            status=201,
        )
    return render(
        request,
        "stream/agents_list.html",
        {"agents": agents_managed(user=request.user), "form": form},
        status=400 if request.method == "POST" else 200,
    )


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def agent_manage(request: HttpRequest, name: str) -> HttpResponse:
    """An agent's keys, and a form to make one (shown once when made)."""
    agent = _managed(request, name)
    if request.method != "POST":
        return _agent_page(request, agent)
    form = KeyCreateForm(request.POST)
    if not form.is_valid():
        return _agent_page(request, agent, form=form, status=400)
    created = agent_key_create(
        agent=agent,
        name=form.cleaned_data["name"],
        scopes=form.cleaned_data["scopes"],
        expires_at=form.cleaned_data["expires_at"],
        by=_actor(request),
    )
    return _agent_page(
        request,
        agent,
        new_key=created.key,
        new_key_row=created.api_key,
        status=201,
    )


def _key(agent: Agent, pk: int) -> ApiKey:
    api_key = agent_key_get(agent=agent, pk=pk)
    if api_key is None:
        raise Http404("no such key")
    return api_key


def _key_page(
    request: HttpRequest,
    agent: Agent,
    api_key: ApiKey,
    *,
    form: KeyScopesForm | None = None,
    status: int = 200,
    saved: bool = False,
) -> HttpResponse:
    return render(
        request,
        "stream/agents_key.html",
        {
            "agent": agent,
            "key": api_key,
            "state": key_state(api_key, now=timezone.now()),
            "form": form or KeyScopesForm(initial={"scopes": list(api_key.scopes)}),
            "saved": saved,
        },
        status=status,
    )


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def agent_key(request: HttpRequest, name: str, pk: int) -> HttpResponse:
    """One key: its details, and a form to change its scopes."""
    agent = _managed(request, name)
    api_key = _key(agent, pk)
    if request.method != "POST":
        return _key_page(request, agent, api_key)
    form = KeyScopesForm(request.POST)
    if api_key.revoked_at is not None:
        form.add_error(None, "This key is revoked; its scopes no longer matter.")
    if not form.is_valid():
        return _key_page(request, agent, api_key, form=form, status=400)
    agent_key_scopes_set(
        agent=agent,
        api_key=api_key,
        scopes=form.cleaned_data["scopes"],
        by=_actor(request),
    )
    return _key_page(request, agent, api_key, saved=True)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def agent_key_revoke_page(request: HttpRequest, name: str, pk: int) -> HttpResponse:
    """Asks before revoking (GET); revokes (POST) and goes back to the
    agent's keys."""
    agent = _managed(request, name)
    api_key = _key(agent, pk)
    if request.method == "POST":
        agent_key_revoke(agent=agent, api_key=api_key, by=_actor(request))
        return redirect("stream:agent-manage", name=agent.name)
    context: dict[str, Any] = {"agent": agent, "key": api_key}
    return render(request, "stream/agents_revoke.html", context)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def agent_key_rotate_page(request: HttpRequest, name: str, pk: int) -> HttpResponse:
    """Asks before rotating (GET); rotates (POST): the new key, with the
    same name, scopes and expiry, is shown once, the old one stops."""
    agent = _managed(request, name)
    api_key = _key(agent, pk)
    if request.method == "POST" and api_key.revoked_at is None:
        rotated = agent_key_rotate(agent=agent, api_key=api_key, by=_actor(request))
        return _agent_page(
            request,
            agent,
            new_key=rotated.key,
            new_key_row=rotated.api_key,
            status=201,
        )
    context: dict[str, Any] = {"agent": agent, "key": api_key}
    return render(request, "stream/agents_rotate.html", context)
