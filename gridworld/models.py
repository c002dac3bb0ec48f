"""Persistence of the gridworld: maps, episode batches and their episodes.

A batch is one run of the run lifecycle (``evals.Run``, benchmark kind
``gridworld``): status, progress and metrics live on that run; its episodes
are the run's cases. Receipts are stored zlib-compressed (canonical JSON).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse


class GridMap(models.Model):
    name = models.CharField(max_length=100)
    text = models.TextField()
    digest = models.CharField(max_length=64, unique=True)
    width = models.PositiveSmallIntegerField()
    height = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.width}x{self.height})"


class EpisodeBatch(models.Model):
    run = models.OneToOneField(
        "evals.Run", on_delete=models.CASCADE, related_name="gridworld_batch"
    )
    grid_map = models.ForeignKey(
        GridMap, on_delete=models.PROTECT, related_name="batches"
    )
    config = models.JSONField()
    seed = models.PositiveIntegerField()
    episodes = models.PositiveIntegerField()
    proposer = models.CharField(max_length=16)
    governor = models.CharField(max_length=16)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="gridworld_batches",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "episode batches"
        # The batch list, newest first, from the index instead of a sort.
        indexes = [models.Index(fields=["-created_at", "-id"], name="batch_newest_idx")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(episodes__gte=1), name="gridworld_batch_episodes_min"
            )
        ]

    def __str__(self) -> str:
        return f"batch {self.pk} of {self.grid_map.name}"

    def get_absolute_url(self) -> str:
        return reverse("gridworld:batch-detail", args=[self.pk])

    @property
    def status(self) -> str:
        return str(self.run.status)

    @property
    def progress(self) -> tuple[int, int]:
        return self.run.progress_done, self.run.total_cases


class Episode(models.Model):
    batch = models.ForeignKey(
        EpisodeBatch, on_delete=models.CASCADE, related_name="episode_rows"
    )
    index = models.PositiveIntegerField()
    seed = models.PositiveIntegerField()
    run_id = models.CharField(max_length=40)
    success = models.BooleanField()
    steps = models.PositiveIntegerField()
    safety_violations = models.PositiveIntegerField()
    metrics = models.JSONField()
    # distance to goal after each step, for the batch's P(t) without receipts
    distances = models.JSONField(default=list)
    receipt_digest = models.CharField(max_length=64)
    receipt_gz = models.BinaryField()
    receipt_bytes = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["batch", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["batch", "index"], name="gridworld_episode_once_per_batch"
            )
        ]

    def __str__(self) -> str:
        return f"episode {self.index} of batch {self.batch_id}"

    def get_absolute_url(self) -> str:
        return reverse("gridworld:episode-detail", args=[self.batch_id, self.index])

    @property
    def passed(self) -> bool:
        """Reached the goal with no safety violation (``episode_passed``)."""
        return self.success and self.safety_violations == 0
