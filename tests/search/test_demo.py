"""The search demo loader indexes what the other loaders wrote and keeps one
saved search; loading twice adds nothing."""

from __future__ import annotations

from typing import Any

import pytest

from search.demo import SAVED_NAME, load_demo
from search.facade import saved_search_subjects
from search.models import SavedSearch, SearchDocument
from tests.search.search_support import thought_make

pytestmark = pytest.mark.django_db


def test_loading_indexes_and_saves_once(owner: Any, agent: Any) -> None:
    thought_make(agent, "collect oak logs", grounding_passed=False)
    assert load_demo(owner=owner) == f"1 documents indexed; saved search {SAVED_NAME!r}"
    assert load_demo(owner=owner) == f"0 documents indexed; saved search {SAVED_NAME!r}"
    assert SearchDocument.objects.count() == 1
    saved = SavedSearch.objects.get()
    assert (saved.owner, saved.filters) == (owner, {})
    # It finds what the demo wrote, so "Review these results" fills a queue.
    assert saved_search_subjects(saved.pk, owner, 10) != []
