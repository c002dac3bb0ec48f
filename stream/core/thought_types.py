"""Thought types the service itself writes, and why clients may not use them.

A thought's ``type`` tells readers (the stream page, planning, the memory
slice) who produced it. The service writes awareness percepts, keep-alive
introspections and opt-in drive ticks; a client that could post those types
would pass its own text off as the service's, so they are reserved.
"""

from __future__ import annotations

from typing import Final

AWARENESS_TYPE: Final = "environmental_awareness"
KEEPALIVE_TYPE: Final = "keepalive"
DRIVE_TICK_TYPE: Final = "drive_tick"

RESERVED_TYPES: Final = (AWARENESS_TYPE, DRIVE_TICK_TYPE, KEEPALIVE_TYPE)


def is_reserved_type(value: str) -> bool:
    """True for a type only the service may write (case-insensitive)."""
    return value.strip().lower() in RESERVED_TYPES
