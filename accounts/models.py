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
    # Past this instant the key authenticates nothing, as if revoked.
    expires_at = models.DateTimeField(null=True, blank=True)
    # The last request it authenticated, written at most once a minute.
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix})"


class AuditEntry(models.Model):
    """One recorded action on agents, keys, baselines or packs: who did it
    (a person, a key, or the command line), what, to what, when and from
    where. Written by the services that do the action; never edited."""

    class Action(models.TextChoices):
        AGENT_CREATE = "agent.create", "agent created"
        KEY_CREATE = "key.create", "key created"
        KEY_REVOKE = "key.revoke", "key revoked"
        KEY_ROTATE = "key.rotate", "key rotated"
        KEY_SCOPES = "key.scopes", "key scopes changed"
        BASELINE_REPLACE = "baseline.replace", "baseline replaced"
        PACK_REPLACE = "pack.replace", "pack replaced"

    at = models.DateTimeField(db_index=True)
    actor_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    actor_key = models.ForeignKey(
        ApiKey, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Who, in words, as it was then: a username, a key, "command line (os user)".
    actor_label = models.CharField(max_length=150)
    action = models.CharField(max_length=32, choices=Action.choices)
    target_type = models.CharField(max_length=32)
    target_id = models.CharField(max_length=64)
    target_label = models.CharField(max_length=200)
    # Whose thing it was (an agent's owner): owners see entries about theirs.
    target_owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    details = models.JSONField(default=dict, blank=True)
    remote_addr = models.CharField(max_length=64, blank=True)
    user_agent = models.CharField(max_length=256, blank=True)

    class Meta:
        ordering = ["-pk"]
        verbose_name_plural = "audit entries"
        indexes = [
            models.Index(fields=["action", "-id"]),
            models.Index(fields=["target_type", "target_id"]),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.target_label} by {self.actor_label}"
