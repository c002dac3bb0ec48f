"""A batch's statistical figures (the IQM and mean table, the performance
profile) and the compare page of two batches (probability of improvement
paired by episode seed). Thin: the numbers come from
``gridworld.core.batch_figures`` and ``batch_pairing``, the chart from
``gridworld.charts``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from gridworld import charts
from gridworld.core.batch_figures import FIGURE_SEED, profiles
from gridworld.core.batch_pairing import differing_pairs, improvements, pairing_problem
from gridworld.core.stats import MIN_RESAMPLES
from gridworld.models import EpisodeBatch
from gridworld.selectors import (
    FIGURE_EPISODES,
    batch_facts,
    batch_get,
    batch_pair_candidates,
    batch_stats,
    episode_points,
)

CANDIDATES = 50


def batch_label(batch: EpisodeBatch) -> str:
    return f"#{batch.pk} {batch.proposer}/{batch.governor}"


def figures_context(batch: EpisodeBatch) -> dict[str, Any]:
    """What the batch page needs for its figures section."""
    stats = batch_stats(batch)
    profile = None
    if stats is not None:
        profile = charts.profile_figure(profiles([(batch_label(batch), stats.points)]))
    return {
        "stats": stats,
        "profile_figure": profile,
        "candidates": batch_pair_candidates(batch, CANDIDATES),
        "figure_limit": FIGURE_EPISODES,
    }


@login_required
def batch_compare(request: HttpRequest, pk: int, other: int) -> HttpResponse:
    """Batch A against batch B: P(A's episode beats B's on the same seed) per
    metric with its interval, both profiles, the seeds whose episodes passed
    on one side only; or, for batches that do not pair, why not."""
    a, b = batch_get(pk), batch_get(other)
    problem = pairing_problem(batch_facts(a), batch_facts(b))
    context: dict[str, Any] = {
        "a": a,
        "b": b,
        "problem": problem,
        "candidates": batch_pair_candidates(a, CANDIDATES),
        "figure_limit": FIGURE_EPISODES,
    }
    if problem is None:
        left = episode_points(a, FIGURE_EPISODES)
        right = episode_points(b, FIGURE_EPISODES)
        if not left or not right:
            context["problem"] = "A batch without stored episodes has nothing to pair."
        else:
            pairs, differing = differing_pairs(left, right)
            context |= {
                "improvements": improvements(left, right),
                "resamples": MIN_RESAMPLES,
                "seed": FIGURE_SEED,
                "pairs": pairs,
                "differing": differing,
                "profile_figure": charts.profile_figure(
                    profiles([(batch_label(a), left), (batch_label(b), right)])
                ),
                "capped": max(a.episodes, b.episodes) > FIGURE_EPISODES,
            }
    return render(request, "gridworld/batch_compare.html", context)
