"""HTML pages of the cognitive stream."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from stream.services import agent_list_visible


@login_required
def index(request: HttpRequest) -> HttpResponse:
    agents = agent_list_visible(user=request.user)
    return render(request, "stream/index.html", {"agents": agents})
