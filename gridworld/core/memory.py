"""The planner's map memory: what it knows of a map, as cells and as text.

A memory text has one line per row (``?`` unseen, ``.`` empty, ``#`` wall,
``x`` hazard, rows joined by ``\n``); ``memory_map`` parses one once per
text, with what the planner derives from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from gridworld.core.env import PATCH_RADIUS
from gridworld.core.types import EMPTY, HAZARD, WALL, Position

UNKNOWN = -1
MEMORY_CHARS = {UNKNOWN: "?", EMPTY: ".", WALL: "#", HAZARD: "x"}
CHAR_MEMORY = {char: cell for cell, char in MEMORY_CHARS.items()}


class MemoryMap(NamedTuple):
    """A remembered map parsed once: rows, the blocked cells' flat indices as
    the planner's BFS takes them, the positions whose whole patch it already holds, and
    its text as ``memory_text`` writes it."""

    rows: tuple[tuple[int, ...], ...]
    blocked: tuple[int, ...]
    complete: frozenset[Position]
    text: str


def blocked_cells(rows: Sequence[Sequence[int]], width: int) -> tuple[int, ...]:
    """The flat indices of the walls and hazards of ``rows`` in a grid framed
    by one cell on every side (``width + 2`` a row), as the planner's BFS
    takes them."""
    return tuple(
        (y + 1) * (width + 2) + x + 1
        for y, row in enumerate(rows)
        for x, cell in enumerate(row)
        if cell in (WALL, HAZARD)
    )


@lru_cache(maxsize=64)
def unknown_rows(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """A map of which nothing is known yet (shared, read-only)."""
    return tuple((UNKNOWN,) * width for _ in range(height))


@lru_cache(maxsize=256)
def memory_map(memory: str, width: int, height: int) -> MemoryMap:
    """``memory`` (a ``memory_text``) parsed (cached: a lane hands each
    episode's final memory to the next, mostly unchanged)."""
    rows = tuple(tuple([CHAR_MEMORY[c] for c in row]) for row in memory.split("\n"))
    complete: frozenset[Position] = frozenset()
    if len(rows) == height and all(len(row) == width for row in rows):
        # Every position but those within a patch of an unseen cell.
        incomplete = {
            (px, py)
            for y, row in enumerate(rows)
            for x, cell in enumerate(row)
            if cell == UNKNOWN
            for py in range(max(0, y - PATCH_RADIUS), min(height, y + PATCH_RADIUS + 1))
            for px in range(max(0, x - PATCH_RADIUS), min(width, x + PATCH_RADIUS + 1))
        }
        complete = (
            frozenset((x, y) for y in range(height) for x in range(width)) - incomplete
        )
    text = "\n".join("".join([MEMORY_CHARS[c] for c in row]) for row in rows)
    return MemoryMap(rows, blocked_cells(rows, width), complete, text)
