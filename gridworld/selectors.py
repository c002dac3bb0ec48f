"""Reads of the gridworld (what the pages and the API list): batches, episodes,
a batch's charts data. Never writes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import (
    Case,
    Count,
    Exists,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)
from django.shortcuts import get_object_or_404

from gridworld.core.batch_figures import (
    FIGURE_SEED,
    EpisodePoint,
    MetricFigures,
    batch_figures,
)
from gridworld.core.batch_pairing import BatchFacts
from gridworld.core.config import DEFAULT_DRIFT_PERIOD, DEFAULT_MAX_STEPS
from gridworld.core.stats import MIN_RESAMPLES
from gridworld.models import Episode, EpisodeBatch

ACTIVE_STATUSES = ("queued", "running")


def batch_list() -> QuerySet[EpisodeBatch]:
    return EpisodeBatch.objects.select_related(
        "run", "run__benchmark", "grid_map", "created_by"
    ).order_by("-created_at", "-pk")


def batch_get(pk: int) -> EpisodeBatch:
    return get_object_or_404(batch_list(), pk=pk)


def batch_for_run(run_id: str) -> EpisodeBatch:
    return get_object_or_404(EpisodeBatch, run__run_id=run_id)


def episode_list(batch: EpisodeBatch) -> QuerySet[Episode]:
    return batch.episode_rows.defer("receipt_gz").order_by("index")


def episode_counts(batch: EpisodeBatch) -> dict[str, int]:
    """``done``, ``passed`` (goal reached, no safety violation: the run's
    passed cases) and ``reached`` (goal reached) over every stored episode;
    one query."""
    return batch.episode_rows.aggregate(
        done=Count("pk"),
        passed=Count("pk", filter=Q(success=True, safety_violations=0)),
        reached=Count("pk", filter=Q(success=True)),
    )


def episode_get(batch_pk: int, index: int) -> Episode:
    return get_object_or_404(
        Episode.objects.select_related("batch", "batch__run", "batch__grid_map"),
        batch_id=batch_pk,
        index=index,
    )


def batch_episode_metrics(batch: EpisodeBatch) -> list[dict[str, Any]]:
    """Every stored episode's metrics, in episode order."""
    return list(batch.episode_rows.order_by("index").values_list("metrics", flat=True))


def episode_points(batch: EpisodeBatch, limit: int) -> list[EpisodePoint]:
    """The first ``limit`` stored episodes as the figures read them (seed,
    map, metrics), in episode order; one query."""
    stratum = batch.grid_map.name
    rows = batch.episode_rows.order_by("index").values_list("index", "seed", "metrics")
    return [
        EpisodePoint(index, seed, stratum, metrics)
        for index, seed, metrics in rows[:limit]
    ]


def batch_facts(batch: EpisodeBatch) -> BatchFacts:
    """What decides whether ``batch`` pairs with another by seed; the seeds
    are those of its stored episodes (a batch with repeats plays more seeds
    than its config's range), the config's range before any is stored."""
    seeds = batch.episode_rows.aggregate(first=Min("seed"), last=Max("seed"))
    return BatchFacts(
        pk=batch.pk,
        map_name=batch.grid_map.name,
        map_digest=batch.grid_map.digest,
        drift_period=int(batch.config.get("drift_period", DEFAULT_DRIFT_PERIOD)),
        max_steps=int(batch.config.get("max_steps", DEFAULT_MAX_STEPS)),
        first_seed=batch.seed if seeds["first"] is None else seeds["first"],
        last_seed=(
            batch.seed + batch.episodes - 1 if seeds["last"] is None else seeds["last"]
        ),
        active=batch.run.status in ACTIVE_STATUSES,
    )


def batch_pair_candidates(batch: EpisodeBatch, limit: int) -> list[EpisodeBatch]:
    """Other batches whose episodes pair with ``batch``'s by seed: the same
    map, goal drift period and step limit, and a stored episode on a seed
    that ``batch`` played; those of the same benchmark first, then the
    newest."""
    facts = batch_facts(batch)
    same_benchmark = Case(
        When(run__benchmark_id=batch.run.benchmark_id, then=Value(0)),
        default=Value(1),
    )
    shared = Episode.objects.filter(
        batch_id=OuterRef("pk"), seed__in=batch.episode_rows.values("seed")
    )
    return list(
        batch_list()
        .exclude(pk=batch.pk)
        .filter(
            Exists(shared),
            grid_map_id=batch.grid_map_id,
            config__drift_period=facts.drift_period,
            config__max_steps=facts.max_steps,
        )
        .order_by(same_benchmark, "-created_at", "-pk")[:limit]
    )


# Figures are computed over at most this many episodes (the first ones, in
# seed order); the page and the API say so when a batch has more.
FIGURE_EPISODES = 2000


@dataclass(frozen=True, slots=True)
class BatchStats:
    """A finished batch's figures and what they were computed over."""

    points: list[EpisodePoint]
    figures: list[MetricFigures]
    capped: bool = False
    resamples: int = MIN_RESAMPLES
    seed: int = FIGURE_SEED

    @property
    def episodes(self) -> int:
        return len(self.points)

    @property
    def strata(self) -> list[str]:
        return sorted({p.stratum for p in self.points})


def batch_stats(batch: EpisodeBatch) -> BatchStats | None:
    """The figures of a finished batch with stored episodes, else ``None``."""
    if batch.run.status in ("queued", "running"):
        return None
    points, capped = figure_points(batch)
    if not points:
        return None
    return BatchStats(points, batch_figures(points), capped)


def figure_points(batch: EpisodeBatch) -> tuple[list[EpisodePoint], bool]:
    """The episodes the figures use, and whether the batch has more."""
    points = episode_points(batch, FIGURE_EPISODES + 1)
    return points[:FIGURE_EPISODES], len(points) > FIGURE_EPISODES


def episode_with_batch(pk: int, *, with_receipt: bool = False) -> Episode | None:
    """One episode with its batch, the batch's run and map loaded (a review
    item's subject), or None. The receipt and the distances map are left
    unread unless ``with_receipt``."""
    found = Episode.objects.select_related("batch__run", "batch__grid_map")
    if not with_receipt:
        found = found.defer("receipt_gz", "distances")
    return found.filter(pk=pk).first()
