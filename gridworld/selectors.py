"""Reads of the gridworld (what the pages and the API list): batches, episodes,
a batch's charts data. Never writes."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet
from django.shortcuts import get_object_or_404

from gridworld.models import Episode, EpisodeBatch


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
