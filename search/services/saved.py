"""Saved searches: a named query with its filters, kept per user."""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from core.errors import NotFound
from search.core.filters import parse_filters, saved_filters
from search.core.query import QueryInvalid, parse
from search.models import SavedSearch

MAX_NAME = 200
MAX_SAVED_PER_USER = 200


def saved_search_create(
    *, owner: AbstractBaseUser, name: str, query: str, params: Mapping[str, str]
) -> SavedSearch:
    """Save ``query`` with the filters of ``params`` under ``name``;
    ``QueryInvalid`` naming the field when the name, query or a filter is
    bad or the name is taken (nothing stored)."""
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME or "\x00" in name:
        raise QueryInvalid(
            f"Give the search a name of 1 to {MAX_NAME} characters.", field="name"
        )
    parse(query)
    filters = parse_filters(
        {k: v for k, v in params.items() if k not in ("cursor", "limit")}
    )
    if filters.problems:
        field, reason = sorted(filters.problems.items())[0]
        raise QueryInvalid(reason, field=field)
    if SavedSearch.objects.filter(owner=owner).count() >= MAX_SAVED_PER_USER:
        raise QueryInvalid(
            f"You can keep at most {MAX_SAVED_PER_USER} saved searches.", field="name"
        )
    try:
        with transaction.atomic():
            return SavedSearch.objects.create(
                owner=owner, name=name, query=query, filters=saved_filters(params)
            )
    except IntegrityError:
        raise QueryInvalid(
            f"You already have a saved search named {name!r}.", field="name"
        ) from None


def saved_search_get(*, saved_search_id: int, user: AbstractBaseUser) -> SavedSearch:
    """The saved search if ``user`` owns it (staff: any); ``NotFound`` otherwise."""
    found = SavedSearch.objects.filter(pk=saved_search_id).first()
    if found is None or not (
        found.owner_id == user.pk or getattr(user, "is_staff", False)
    ):
        raise NotFound(f"no saved search {saved_search_id}")
    return found


def saved_search_delete(*, saved_search_id: int, user: AbstractBaseUser) -> None:
    """Delete the user's saved search; ``NotFound`` when it is not theirs."""
    found = SavedSearch.objects.filter(pk=saved_search_id, owner=user).first()
    if found is None:
        raise NotFound(f"no saved search {saved_search_id}")
    found.delete()
