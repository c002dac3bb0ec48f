"""Gridworld pages: batches (with a form to start one), a batch, an episode."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from core.errors import SchemaInvalid
from gridworld import charts
from gridworld.core.config import DEFAULT_DRIFT_PERIOD, DEFAULT_MAX_STEPS
from gridworld.core.grid import LAYOUTS
from gridworld.core.metrics import SAFETY_COUNTERS, batch_metrics
from gridworld.core.types import Q
from gridworld.selectors import (
    batch_for_run,
    batch_get,
    batch_list,
    episode_counts,
    episode_get,
    episode_list,
)
from gridworld.services.batches import batch_create
from gridworld.services.episodes import INTACT, receipt_verify, stored_receipt
from gridworld.views.batch_figures import figures_context

BATCHES_PER_PAGE = 25
EPISODES_PER_PAGE = 100
CHART_EPISODES = 2000
FORM_FIELDS = (
    "map",
    "episodes",
    "proposer",
    "governor",
    "seed",
    "drift_period",
    "max_steps",
)
FORM_DEFAULTS = {
    "map": "hazard",
    "episodes": "100",
    "proposer": "planner",
    "governor": "lexicographic",
    "seed": "0",
    "drift_period": str(DEFAULT_DRIFT_PERIOD),
    "max_steps": str(DEFAULT_MAX_STEPS),
}


def _form_config(data: Any) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for name in FORM_FIELDS:
        raw = (data.get(name) or "").strip()
        if not raw:
            continue
        if name in ("map", "proposer", "governor"):
            config[name] = raw
        else:
            try:
                config[name] = int(raw)
            except ValueError:
                config[name] = raw
    return config


@login_required
@require_http_methods(["GET", "POST"])
def index(request: HttpRequest) -> HttpResponse:
    """Episode batches, newest first, with live progress and a form to start one."""
    errors: dict[str, str] = {}
    form = dict(FORM_DEFAULTS)
    status = 200
    if request.method == "POST":
        form = {name: request.POST.get(name, "") for name in FORM_FIELDS}
        try:
            batch = batch_create(
                config=_form_config(request.POST), user=request.user, started_via="web"
            )
        except SchemaInvalid as exc:
            errors = {p.path: p.message for p in exc.problems}
            status = 400
        else:
            return redirect(batch.get_absolute_url())
    page = Paginator(batch_list(), BATCHES_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "gridworld/index.html",
        {
            "page": page,
            "form": form,
            "errors": errors,
            "layouts": LAYOUTS,
            "has_active": any(b.run.status in ("queued", "running") for b in page),
        },
        status=status,
    )


@login_required
def batch_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A batch: verdict, success, safety counters, charts, the statistical
    figures and its episodes. ``?compare=<pk>`` (the page's compare form)
    goes to the compare page of this batch and that one."""
    batch = batch_get(pk)
    other = request.GET.get("compare", "")
    if other.isdigit():
        return redirect("gridworld:batch-compare", pk=batch.pk, other=int(other))
    run = batch.run
    rows = list(
        episode_list(batch).values_list("metrics", "distances")[:CHART_EPISODES]
    )
    metrics = [m for m, _ in rows]
    aggregate = batch_metrics(metrics) if metrics else None
    page = Paginator(episode_list(batch), EPISODES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    figures = {}
    if metrics:
        figures = {
            "steps": charts.steps_figure(metrics),
            "distance": charts.batch_distance_figure([d for _, d in rows]),
            "rejected": charts.rejected_figure(aggregate["rejected_by_reason"])
            if aggregate and aggregate["rejected_by_reason"]
            else None,
        }
    return render(
        request,
        "gridworld/batch_detail.html",
        {
            "batch": batch,
            "run": run,
            "aggregate": aggregate,
            "counts": episode_counts(batch),
            "charted": len(metrics),
            "chart_limit": CHART_EPISODES,
            "safety": [
                (name.replace("_", " "), aggregate[name] if aggregate else 0)
                for name in SAFETY_COUNTERS
            ],
            "figures": figures,
            "page": page,
            "is_active": run.status in ("queued", "running"),
            **figures_context(batch),
        },
    )


@login_required
def run_batch(request: HttpRequest, run_id: str) -> HttpResponse:
    """The batch of a run (the run pages of other benchmarks link here)."""
    return redirect(batch_for_run(run_id).get_absolute_url())


@login_required
def run_episode(request: HttpRequest, run_id: str, index: int) -> HttpResponse:
    """An episode of a run's batch (a case ``episode-<index>`` of the run, as
    the compare and run pages name it, links here)."""
    batch = batch_for_run(run_id)
    return redirect("gridworld:episode-detail", pk=batch.pk, index=index)


def _step_rows(receipt: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for step in receipt["steps"]:
        rows.append(
            {
                "step": step,
                "budget": step["budget"] / Q,
                "exposure": step["exposure"] / Q,
                "proposals": [
                    {
                        "action": p["action"],
                        "score": p["score"] / Q,
                        "reasons": p["reasons"],
                        "chosen": index == step["chosen_proposal_index"],
                    }
                    for index, p in enumerate(step["decision"])
                ],
            }
        )
    return rows


@login_required
@require_http_methods(["GET", "POST"])
def episode_detail(request: HttpRequest, pk: int, index: int) -> HttpResponse:
    """An episode drawn on its map, its charts and every step's decision; the
    Verify button (POST) replays the stored receipt and shows the verdict.

    A stored receipt whose bytes changed since the episode was stored is not
    drawn (nothing in it can be trusted to have the receipt's shape): the
    page says so in plain words, shows the figures recorded with the episode
    and still offers the download (if it reads as JSON) and the replay."""
    episode = episode_get(pk, index)
    stored = stored_receipt(episode)
    receipt = stored.document if stored.status == INTACT else None
    verification = refusal = None
    if request.method == "POST" and stored.document is not None:
        try:
            verification = receipt_verify(stored.document, source="web")
        except SchemaInvalid as exc:
            refusal = "; ".join(f"{p.path}: {p.message}" for p in exc.problems)
            refusal = f"{exc.message}: {refusal}"
    return render(
        request,
        "gridworld/episode_detail.html",
        {
            "episode": episode,
            "batch": episode.batch,
            "stored": stored,
            "receipt": receipt,
            "metrics": receipt["metrics"] if receipt else episode.metrics,
            "steps": _step_rows(receipt) if receipt else [],
            "grid_figure": charts.grid_figure(receipt) if receipt else None,
            "series_figure": charts.episode_series_figure(receipt) if receipt else None,
            "verification": verification,
            "refusal": refusal,
            "previous": index - 1 if index > 0 else None,
            "next": index + 1 if index + 1 < episode.batch.episodes else None,
        },
    )
