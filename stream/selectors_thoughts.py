"""Which thoughts an agent owns, for apps that link records to thoughts by id.

Traces links a span to the thought it names (its thought id attribute) only
when the thought is the sending agent's: one agent's key must not attach
spans to another agent's thoughts.
"""

from __future__ import annotations

from collections.abc import Iterable

from stream.models import Thought


def thought_ids_owned(*, agent_id: int, thought_ids: Iterable[int]) -> set[int]:
    """The ids among ``thought_ids`` of thoughts that belong to ``agent_id``
    (one query; ids of pruned or foreign thoughts are left out)."""
    wanted = set(thought_ids)
    if not wanted:
        return set()
    return set(
        Thought.objects.filter(agent_id=agent_id, pk__in=wanted).values_list(
            "pk", flat=True
        )
    )
