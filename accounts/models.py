"""API keys: who holds them, what they may do (``core.scopes``).

Only the key's prefix (for lookup) and its sha256 (for comparison) are
stored; the key itself is shown once, when it is made. An app that gives
keys to its own principals (the stream's agents) points at the key; a key
knows nothing of them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from core.scopes import DEFAULT_SCOPES


def default_key_scopes() -> list[str]:
    return list(DEFAULT_SCOPES)


class ApiKey(models.Model):
    # What the key is recorded as (an agent's key: the agent's name).
    name = models.CharField(max_length=64)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="api_keys"
    )
    prefix = models.CharField(max_length=16, unique=True)
    key_hash = models.CharField(max_length=64)
    # What the key may do (core.scopes); new keys may do stream work only.
    scopes = models.JSONField(default=default_key_scopes)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix})"
