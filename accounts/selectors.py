"""Reads of API keys."""

from __future__ import annotations

from accounts.holders import holder_relations
from accounts.models import ApiKey


def key_by_prefix(prefix: str) -> ApiKey | None:
    """The key that is not revoked with this prefix, its owner and its
    holders' principals (``accounts.holders``) loaded in the same query."""
    return (
        ApiKey.objects.select_related("owner", *holder_relations())
        .filter(prefix=prefix, revoked_at__isnull=True)
        .first()
    )
