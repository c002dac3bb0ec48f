"""A stored run file's item with its case results as columns (the
``--stat`` gate's read, ``evals.core.case_columns``) or built, as the store
reader (``evals.core.store_reader``) is asked."""

from __future__ import annotations

from typing import Any

import msgspec

from evals.core.run_case_results import stored_case_columns
from evals.core.runs import StoredRunFile, stored_run_summary
from evals.core.store import StoredItem


def stored_run_item(
    relative: str, stored: StoredRunFile, *, columns: bool
) -> StoredItem[Any]:
    """The stored item of a run file ``read_stored_run`` vouched for; with
    ``columns``, its case results as columns and its ``case_results``
    ``None`` (not built), else its case results built."""
    cases = stored.run.caseResults
    if not columns or cases is msgspec.UNSET:
        return StoredItem(relative, stored_run_summary(stored))
    bare = StoredRunFile(
        stored.key, msgspec.structs.replace(stored.run, caseResults=msgspec.UNSET)
    )
    return StoredItem(relative, stored_run_summary(bare), stored_case_columns(cases))
