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
from gridworld.core.stats import MIN_RESAMPLES, StatsInputError
from gridworld.models import EpisodeBatch
from gridworld.selectors import (
    FIGURE_EPISODES,
    batch_facts,
    batch_get,
    batch_pair_candidates,
    batch_stats,
    figure_points,
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
    }


@login_required
def batch_compare(request: HttpRequest, pk: int, other: int) -> HttpResponse:
    """Batch A against batch B: P(A's episode beats B's on the same seed) per
    metric with its interval, both profiles, the seeds whose episodes passed
    on one side only; or, for batches that do not pair, why not."""
    a, b = batch_get(pk), batch_get(other)
    a_facts, b_facts = batch_facts(a), batch_facts(b)
    problem = pairing_problem(a_facts, b_facts)
    context: dict[str, Any] = {
        "a": a,
        "b": b,
        "a_facts": a_facts,
        "b_facts": b_facts,
        "problem": problem,
        "candidates": batch_pair_candidates(a, CANDIDATES),
        "figure_limit": FIGURE_EPISODES,
    }
    if problem is None:
        (left, left_capped), (right, right_capped) = figure_points(a), figure_points(b)
        try:
            found = improvements(left, right)
        except StatsInputError:
            context["problem"] = (
                f"Batch #{a.pk} and batch #{b.pk} have no stored episode on a "
                "common seed: nothing to pair."
            )
        else:
            pairs, differing = differing_pairs(left, right)
            context |= {
                "improvements": found,
                "resamples": MIN_RESAMPLES,
                "seed": FIGURE_SEED,
                "pairs": pairs,
                "differing": differing,
                "profile_figure": charts.profile_figure(
                    profiles([(batch_label(a), left), (batch_label(b), right)])
                ),
                "capped": left_capped or right_capped,
            }
    return render(request, "gridworld/batch_compare.html", context)
