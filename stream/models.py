"""Persistence of the cognitive stream: agents and what they publish."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Agent(models.Model):
    """An agent that streams into evalsite, authenticated by its API key.

    Only the key's prefix (for lookup) and its sha256 (for comparison) are
    stored; the key itself is shown once, when it is created.
    """

    name = models.SlugField(max_length=64, unique=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_agents"
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="member_agents"
    )
    key_prefix = models.CharField(max_length=16, unique=True)
    key_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
