"""Project-level pages: the overview and the health endpoint."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from evalsite.services import health_get


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"health": health_get()})


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    health = health_get()
    return JsonResponse(
        {
            "ok": health.ok,
            "database": health.database,
            "broker": health.broker,
            "workerLastSeenS": health.worker_last_seen_s,
        },
        status=200 if health.ok else 503,
    )
