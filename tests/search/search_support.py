"""Builders for the search tests: thoughts of two owners' agents, indexed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from search.services.indexer import index_pass
from tests.builders import T0, agent_make


def thought_make(agent: Any, content: str, *, minutes: int = 0, **fields: Any) -> Any:
    """A stored thought of ``agent`` (not through the pipeline: fast)."""
    from stream.models import Thought

    return Thought.objects.create(
        agent=agent,
        type=fields.pop("type", "reflection"),
        content=content,
        content_hash="0" * 16,
        convert_eligible=fields.pop("convert_eligible", False),
        eligibility_reason="no_goal",
        grounding_passed=fields.pop("grounding_passed", None),
        source="agent",
        created_at=T0 + timedelta(minutes=minutes),
        **fields,
    )


def two_owners(agent: Any, stranger: Any) -> dict[str, Any]:
    """Alpha (owner alice, member bob) and beta (owner charlie), each with
    thoughts about creepers, indexed; returns the thoughts and beta."""
    beta = agent_make(owner=stranger, name="beta")
    found = {
        "alpha_1": thought_make(
            agent, "A creeper hissed behind the oak tree", minutes=1
        ),
        "alpha_2": thought_make(
            agent, "Second creeper spotted near <b>lava</b>", minutes=2
        ),
        "beta_1": thought_make(
            beta.agent, "Beta saw a creeper in the secret base", minutes=3
        ),
        "beta": beta,
    }
    index_pass()
    return found
