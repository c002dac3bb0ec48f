"""Which thoughts an agent owns, for apps that link records to thoughts by id.

Traces links a span to the thought it names (its thought id attribute) only
when the thought is the sending agent's: one agent's key must not attach
spans to another agent's thoughts.
"""

from __future__ import annotations

from collections.abc import Iterable

from stream.models import Thought

CHUNK = 1000


def thought_ids_owned(*, agent_id: int, thought_ids: Iterable[int]) -> set[int]:
    """The ids among ``thought_ids`` of thoughts that belong to ``agent_id``
    (one query per ``CHUNK`` ids; ids of pruned or foreign thoughts are
    left out)."""
    wanted = sorted(set(thought_ids))
    owned: set[int] = set()
    # In slices: SQLite binds a bounded number of parameters per statement.
    for start in range(0, len(wanted), CHUNK):
        owned.update(
            Thought.objects.filter(
                agent_id=agent_id, pk__in=wanted[start : start + CHUNK]
            ).values_list("pk", flat=True)
        )
    return owned


def thought_with_agent(pk: int) -> Thought | None:
    """One thought with its agent loaded (a review item's subject), or None
    when it does not exist (pruned or never stored)."""
    return Thought.objects.select_related("agent").filter(pk=pk).first()
