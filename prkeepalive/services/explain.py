"""The dry run: the core's explanation of a pasted event and state. Reads
nothing, writes nothing, calls nobody; the API's serializer
(``prkeepalive.api.outputs.ExplanationSerializer``) and the PR page show it."""

from __future__ import annotations

from typing import Any

from prkeepalive.core.explain import Explanation, explain


def explanation_of(document: Any) -> Explanation:
    """Raises ``SchemaInvalid`` (-> 400 with every field) on a bad document."""
    return explain(document)
