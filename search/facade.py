"""What other parts of the project may use of search: the subjects a saved
search finds, for filling a review queue."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from search.core.filters import parse_filters
from search.core.query import parse
from search.selectors import documents_visible, subjects_matching
from search.services.saved import saved_search_get

MAX_SUBJECTS = 5000


def saved_search_subjects(
    saved_search_id: int, user: AbstractBaseUser, limit: int
) -> list[tuple[str, str]]:
    """The review subjects (kind, ref) the saved search finds now among what
    ``user`` may read, newest first, each once, at most ``limit`` (capped at
    5000): kinds ``thought``, ``scenario_result``, ``keepalive_decision``.
    ``core.errors.NotFound`` when the saved search is not the user's;
    ``search.core.query.QueryInvalid`` if its query no longer parses."""
    saved = saved_search_get(saved_search_id=saved_search_id, user=user)
    query = parse(saved.query)
    filters = parse_filters({k: str(v) for k, v in saved.filters.items()})
    docs = documents_visible(user=user)
    return subjects_matching(
        docs, query, filters, limit=max(0, min(limit, MAX_SUBJECTS))
    )
