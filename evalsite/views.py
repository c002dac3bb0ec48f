"""Project-level pages: the overview, the health page and endpoint, the site
icon."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from core.health import HealthRow, health_rows
from evalsite.overview import overview_context
from evalsite.services import health_get


@require_GET
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> FileResponse:
    """``/favicon.ico`` for clients that ask for it there (pages link the
    static copy); no login, cached for a day."""
    found = finders.find("favicon.ico")
    if not isinstance(found, str):
        raise Http404("no favicon")
    return FileResponse(open(found, "rb"), content_type="image/x-icon")


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The overview: the sections the apps register (``evalsite.overview``:
    the latest run of each benchmark with its verdict, open regressions,
    invalid uploads, stream health, PR keepalive ...) and service health;
    every tile links on."""
    rows = _health_rows()
    return render(
        request,
        "home.html",
        {
            "health_rows": rows,
            "health_ok": all(row.ok for row in rows),
            **overview_context(request),
        },
    )


def _heartbeat_s() -> float:
    """How often the worker checks in (the beat schedule's heartbeat)."""
    entry = settings.CELERY_BEAT_SCHEDULE.get("heartbeat") or {}
    every = entry.get("schedule")
    return every.total_seconds() if hasattr(every, "total_seconds") else 30.0


def _health_rows() -> list[HealthRow]:
    checked = health_get()
    return health_rows(
        database=checked.database,
        database_ok=checked.database_ok,
        broker=checked.broker,
        broker_ok=checked.broker_ok,
        worker_last_seen_s=checked.worker_last_seen_s,
        heartbeat_s=_heartbeat_s(),
    )


@require_GET
def health(request: HttpRequest) -> HttpResponse:
    """The service's health for people: the database, the task queue and the
    worker in a table, in plain words (``/healthz`` is the same for
    machines). No login, so it answers while logging in cannot."""
    rows = _health_rows()
    return render(
        request,
        "health.html",
        {"rows": rows, "all_ok": all(row.ok for row in rows)},
    )


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    health = health_get()
    return JsonResponse(
        {
            "ok": health.ok,
            "database": health.database,
            "broker": health.broker,
            "brokerOk": health.broker_ok,
            "databaseOk": health.database_ok,
            "workerLastSeenS": health.worker_last_seen_s,
        },
        status=200 if health.ok else 503,
    )
