"""Thought types the service itself writes, and why clients may not use them.

A thought's ``type`` tells readers (the stream page, planning, the memory
slice) who produced it. The service writes awareness percepts, keep-alive
introspections and opt-in drive ticks; a client that could post those types
would pass its own text off as the service's, so they are reserved.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

AWARENESS_TYPE: Final = "environmental_awareness"
KEEPALIVE_TYPE: Final = "keepalive"
DRIVE_TICK_TYPE: Final = "drive_tick"

RESERVED_TYPES: Final = (AWARENESS_TYPE, DRIVE_TICK_TYPE, KEEPALIVE_TYPE)


def is_reserved_type(value: str) -> bool:
    """True for a type only the service may write (case-insensitive)."""
    return value.strip().lower() in RESERVED_TYPES


# Fields of a posted thought that the service decides and a client can never
# set; posting them is harmless (they are listed back as ignored), never an
# error.
INJECTABLE_NEVER: Final = (
    "goalKey",
    "extractedGoal",
    "novelty",
    "processed",
    "grounding",
)


def ignored_fields(data: Mapping[str, object], *, injection_enabled: bool) -> list[str]:
    """The fields of one posted thought that have no effect, sorted: the
    never-injectable keys, and ``convertEligible`` while dev injection is
    off."""
    ignored = {key for key in data if key in INJECTABLE_NEVER}
    if "convertEligible" in data and not injection_enabled:
        ignored.add("convertEligible")
    return sorted(ignored)
