"""Project-level pages: the overview, the health page and endpoint, the site
icon."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from core.health import HealthRow, health_rows
from evals.selectors.benchmarks import (
    benchmark_kinds,
    invalid_uploads_pending,
    latest_runs,
)
from evals.selectors.runs import runs_in_pks
from evals.services.standings import baseline_standings
from evalsite.services import health_get
from prkeepalive.selectors import keepalive_overview
from stream.selectors import agent_list_visible
from stream.services.stream_health import stream_health

BENCHMARKS_PER_PAGE = 12
REGRESSIONS_PER_PAGE = 10
PENDING_UPLOADS_SHOWN = 3


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
    """The overview: the latest run of each benchmark with its verdict, open
    regressions against each benchmark's baseline, invalid uploads waiting
    for review, stream health and service health; every tile links on."""
    kind = request.GET.get("kind", "")
    if kind not in {value for value, _ in benchmark_kinds()}:
        kind = ""
    search = request.GET.get("q", "").strip()
    benchmarks = latest_runs(kind=kind or None, search=search or None)
    page = Paginator(benchmarks, BENCHMARKS_PER_PAGE).get_page(request.GET.get("page"))
    latest = runs_in_pks(b.latest_run_pk for b in page.object_list)
    standings = baseline_standings()
    regressed = [standings[b] for b in sorted(standings) if standings[b].regressed]
    regression_page = Paginator(regressed, REGRESSIONS_PER_PAGE).get_page(
        request.GET.get("rpage")
    )
    pending_count, pending = invalid_uploads_pending(PENDING_UPLOADS_SHOWN)
    if not request.user.is_staff:
        # Upload file names are chosen by whoever uploaded; only staff, who
        # review them, see them.
        pending = []
    agents = agent_list_visible(user=request.user).filter(is_active=True)
    rows = _health_rows()
    filters = [(key, value) for key, value in (("kind", kind), ("q", search)) if value]
    cards: list[dict[str, Any]] = [
        {
            "benchmark": benchmark,
            "run": latest.get(benchmark.latest_run_pk),
            "standing": standings.get(benchmark.benchmark_id),
        }
        for benchmark in page.object_list
    ]
    return render(
        request,
        "home.html",
        {
            "health_rows": rows,
            "health_ok": all(row.ok for row in rows),
            "stream": stream_health(agents=agents, now=timezone.now()),
            "cards": cards,
            "page": page,
            "kind": kind,
            "kinds": benchmark_kinds(),
            "search": search,
            "filter_query": urlencode(filters),
            "regression_page": regression_page,
            "regressed_count": len(regressed),
            "baselined_count": len(standings),
            "pending_count": pending_count,
            "pending": pending,
            "keepalive": keepalive_overview(now=timezone.now()),
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
