"""Operational records of the service itself (not of any agent)."""

from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """The last time a Celery process (worker via beat) proved it was alive."""

    source = models.CharField(max_length=64, unique=True)
    hostname = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    last_seen_at = models.DateTimeField()
    beats = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.source}@{self.hostname}"
