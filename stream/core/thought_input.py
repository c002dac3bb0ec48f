"""The plain shape of one posted thought, checked without the serializer.

Almost every thought an agent posts is a JSON object with a non-empty
``content`` string and perhaps a ``type``, ``convertEligible`` and
``metadata``. ``plain_thought_input`` accepts exactly those bodies whose
checks it can make in a few comparisons and returns what
``ThoughtInputSerializer`` would validate them to; anything else (a wrong
type, a value the serializer would coerce, a string it would refuse) is
left to the serializer, which says what is wrong. Building the serializer's
fields for every request cost more than the thought's whole pipeline.
"""

from __future__ import annotations

import re
from typing import Any, Final

from stream.core.thought_types import is_reserved_type

CONTENT_MAX_CHARS: Final = 20_000
TYPE_PATTERN: Final = r"^[a-z][a-z0-9_\-]{0,63}$"
DEFAULT_TYPE: Final = "reflection"

_TYPE = re.compile(TYPE_PATTERN)
# What the serializer's character fields refuse besides NUL.
_SURROGATE = re.compile("[\ud800-\udfff]")


def plain_thought_input(data: object) -> dict[str, Any] | None:
    """The serializer's ``validated_data`` for ``data`` when it has the plain
    shape; None when the serializer has to decide."""
    if type(data) is not dict:
        return None
    content = data.get("content")
    if (
        type(content) is not str
        or not content
        or len(content) > CONTENT_MAX_CHARS
        or "\x00" in content
        or (not content.isascii() and _SURROGATE.search(content))
    ):
        return None
    kind = data.get("type", DEFAULT_TYPE)
    if type(kind) is not str or not _TYPE.fullmatch(kind) or is_reserved_type(kind):
        return None
    validated: dict[str, Any] = {"content": content, "type": kind}
    if "convertEligible" in data:
        claim = data["convertEligible"]
        if claim is not None and type(claim) is not bool:
            return None
        validated["convertEligible"] = claim
    if "metadata" in data:
        metadata = data["metadata"]
        if type(metadata) is not dict or not all(type(k) is str for k in metadata):
            return None
        validated["metadata"] = dict(metadata)
    return validated


def plain_thought_batch(
    thoughts: object, *, max_batch: int
) -> list[dict[str, Any]] | None:
    """``plain_thought_input`` of every item of a batch's ``thoughts`` list, or
    None when the list or any item needs the serializer."""
    if type(thoughts) is not list or not 0 < len(thoughts) <= max_batch:
        return None
    items = []
    for item in thoughts:
        validated = plain_thought_input(item)
        if validated is None:
            return None
        items.append(validated)
    return items
