"""Use cases of API keys: make, rotate, revoke, authenticate."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
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


def api_key_create(
    *, name: str, owner: AbstractBaseUser, scopes: Iterable[str] = DEFAULT_SCOPES
) -> CreatedKey:
    """A new key for ``owner``. ``scopes`` (``core.scopes``; default
    ``stream`` only) bound what it may do; ``UnknownScope`` for a name that is
    not a scope, before anything is stored."""
    granted = list(parse_scopes(scopes))
    new = key_new()
    api_key = ApiKey.objects.create(
        name=name,
        owner=owner,
        prefix=new.prefix,
        key_hash=new.key_hash,
        scopes=granted,
    )
    return CreatedKey(api_key=api_key, key=new.key)


def api_key_revoke(*, api_key: ApiKey) -> None:
    """The key authenticates nothing from now on."""
    ApiKey.objects.filter(pk=api_key.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


def api_key_rotate(*, api_key: ApiKey) -> CreatedKey:
    """A new key with the same name, owner and scopes; the old one is
    revoked at once."""
    with transaction.atomic():
        api_key_revoke(api_key=api_key)
        new = key_new()
        rotated = ApiKey.objects.create(
            name=api_key.name,
            owner_id=api_key.owner_id,
            prefix=new.prefix,
            key_hash=new.key_hash,
            scopes=list(api_key.scopes),
        )
    return CreatedKey(api_key=rotated, key=new.key)


def api_key_authenticate(*, key: str) -> ApiKey | None:
    """The key (not revoked) this is, its owner loaded; None otherwise."""
    prefix = key_prefix(key)
    if prefix is None:
        return None
    api_key = key_by_prefix(prefix)
    if api_key is None or not key_matches(key, api_key.key_hash):
        return None
    return api_key
