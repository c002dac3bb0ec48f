"""Storing published thoughts with their counter increments, all or nothing.

One transaction: the thoughts' INSERT (``Model.save`` for one, which sends
``pre_save``/``post_save``; ``bulk_create`` for more, ids in the rows'
order), then the counters' ``UPDATE ... SET c = c + n`` (with the held count,
``stream.services.counters.counters_add_stored``). A one-statement
write (the counters' update and the insert under one ``WITH``, on
PostgreSQL) bought 1.07-1.16x thoughts/s through POST /thoughts
(``bench/fastpaths.py``), under the 1.5x a second implementation must earn.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from stream.models import Agent, Thought
from stream.services.counters import COUNTER_FIELDS, counters_add_stored


def thoughts_store(
    *, agent: Agent, thoughts: Sequence[Thought], increments: dict[str, int]
) -> int | None:
    """Insert ``thoughts`` (unsaved) and add ``increments`` to the agent's
    counters and the thoughts to its held count, in one transaction; sets
    each thought's pk. Returns the held count (``counters_add_stored``)."""
    unknown = set(increments) - set(COUNTER_FIELDS)
    if unknown:
        raise ValueError(f"unknown counters: {sorted(unknown)}")
    with transaction.atomic():
        if len(thoughts) > 1:
            Thought.objects.bulk_create(thoughts)
        elif thoughts:
            thoughts[0].save()
        return counters_add_stored(agent=agent, stored=len(thoughts), **increments)
