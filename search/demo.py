"""Demo data of search: everything the other demo loaders wrote, indexed,
and a saved search of the demo user's (ungrounded thoughts and outputs).

Registered in ``DEMO_DATA_LOADERS`` after every other loader (it indexes
what they wrote); loading twice adds nothing.
"""

from __future__ import annotations

from typing import Any

from search.models import SavedSearch
from search.services.indexer import index_pass

SAVED_NAME = "Demo: goals to collect or craft"
SAVED_QUERY = "goal* OR collect* OR craft*"


def load_demo(*, owner: Any) -> str:
    result = index_pass(max_batches=1000)
    written = sum(result.written.values())
    while result.more:
        result = index_pass(max_batches=1000)
        written += sum(result.written.values())
    SavedSearch.objects.get_or_create(
        owner=owner,
        name=SAVED_NAME,
        defaults={"query": SAVED_QUERY, "filters": {}},
    )
    return f"{written} documents indexed; saved search {SAVED_NAME!r}"
