"""Use cases of API keys: make, rotate, revoke, rescope, authenticate, and
note when a key was last used (at most one write a minute per key)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.core.keys import key_matches, key_new, key_prefix
from accounts.models import ApiKey
from accounts.selectors import key_by_prefix
from core.scopes import DEFAULT_SCOPES, parse_scopes


@dataclass(frozen=True, slots=True)
class CreatedKey:
    api_key: ApiKey
    # The key itself: returned once, never stored.
    key: str


# last_used_at is written when the stored one is older than this.
LAST_USED_EVERY = timedelta(seconds=60)


class KeyExpiryPast(ValueError):
    """An expiry that is not in the future."""


def api_key_create(
    *,
    name: str,
    owner: AbstractBaseUser,
    scopes: Iterable[str] = DEFAULT_SCOPES,
    expires_at: datetime | None = None,
) -> CreatedKey:
    """A new key for ``owner``. ``scopes`` (``core.scopes``; default
    ``stream`` only) bound what it may do; ``UnknownScope`` for a name that is
    not a scope, ``KeyExpiryPast`` for an ``expires_at`` not in the future,
    before anything is stored. Past ``expires_at`` it authenticates nothing."""
    granted = list(parse_scopes(scopes))
    if expires_at is not None and expires_at <= timezone.now():
        raise KeyExpiryPast("the expiry must be in the future")
    new = key_new()
    api_key = ApiKey.objects.create(
        name=name,
        owner=owner,
        prefix=new.prefix,
        key_hash=new.key_hash,
        scopes=granted,
        expires_at=expires_at,
    )
    return CreatedKey(api_key=api_key, key=new.key)


def api_key_revoke(*, api_key: ApiKey) -> None:
    """The key authenticates nothing from now on."""
    ApiKey.objects.filter(pk=api_key.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


def api_key_scopes_set(*, api_key: ApiKey, scopes: Iterable[str]) -> list[str]:
    """Give the key these scopes (``UnknownScope`` before anything is
    stored); returns them as stored. Takes effect on its next request."""
    granted = list(parse_scopes(scopes))
    ApiKey.objects.filter(pk=api_key.pk).update(scopes=granted)
    api_key.scopes = granted
    return granted


def api_key_rotate(*, api_key: ApiKey) -> CreatedKey:
    """A new key with the same name, owner, scopes and expiry; the old one
    is revoked at once."""
    with transaction.atomic():
        api_key_revoke(api_key=api_key)
        new = key_new()
        rotated = ApiKey.objects.create(
            name=api_key.name,
            owner_id=api_key.owner_id,
            prefix=new.prefix,
            key_hash=new.key_hash,
            scopes=list(api_key.scopes),
            expires_at=api_key.expires_at,
        )
    return CreatedKey(api_key=rotated, key=new.key)


def api_key_used(*, api_key: ApiKey, now: datetime | None = None) -> bool:
    """Note that the key was used now, when the time it holds (loaded with
    it) is over a minute old: most requests write nothing, and of several
    at once only the first UPDATE matches. Runs on its own (autocommit),
    outside any request transaction. Returns whether it wrote."""
    now = now or timezone.now()
    last = api_key.last_used_at
    if last is not None and now - last < LAST_USED_EVERY:
        return False
    written = ApiKey.objects.filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY),
        pk=api_key.pk,
    ).update(last_used_at=now)
    api_key.last_used_at = now
    return bool(written)


def api_key_authenticate(*, key: str) -> ApiKey | None:
    """The key (neither revoked nor expired) this is, its owner loaded;
    None otherwise."""
    prefix = key_prefix(key)
    if prefix is None:
        return None
    api_key = key_by_prefix(prefix)
    if api_key is None or not key_matches(key, api_key.key_hash):
        return None
    return api_key
