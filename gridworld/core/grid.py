"""Maps: the three standard layouts, a small text format and seeded generation.

A map is immutable; its hash is the sha256 of its text form, so a receipt names
the exact cells it ran on. Generated maps are always solvable: start and goal
are connected through non-hazard, non-wall cells (checked by BFS); generation is
driven by an integer PRNG (splitmix64), never by ``random``.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass
from functools import lru_cache

from gridworld.core.types import (
    DELTAS,
    EMPTY,
    HAZARD,
    WALL,
    Cells,
    GridworldError,
    Position,
)

MAX_SIDE = 64
CELL_CHARS = {".": EMPTY, "#": WALL, "x": HAZARD, "S": EMPTY, "G": EMPTY}
CHAR_OF = {EMPTY: ".", WALL: "#", HAZARD: "x"}
LAYOUTS = ("simple", "maze", "hazard")
UNREACHABLE = -1


@dataclass(frozen=True, slots=True)
class GridMap:
    """Cells indexed ``cells[y][x]``; start and initial goal as ``(x, y)``."""

    name: str
    cells: Cells
    start: Position
    goal: Position

    @property
    def width(self) -> int:
        return len(self.cells[0])

    @property
    def height(self) -> int:
        return len(self.cells)

    def text(self) -> str:
        """The map in the text format (``.`` ``#`` ``x`` ``S`` ``G``), a row a line."""
        return _map_text(self.cells, self.start, self.goal)

    def digest(self) -> str:
        return _map_digest(self.cells, self.start, self.goal)


@lru_cache(maxsize=256)
def _map_text(cells: Cells, start: Position, goal: Position) -> str:
    rows = []
    for y, row in enumerate(cells):
        chars = [CHAR_OF[cell] for cell in row]
        if y == start[1]:
            chars[start[0]] = "S"
        if y == goal[1]:
            chars[goal[0]] = "G"
        rows.append("".join(chars))
    return "\n".join(rows) + "\n"


@lru_cache(maxsize=256)
def _map_digest(cells: Cells, start: Position, goal: Position) -> str:
    return hashlib.sha256(_map_text(cells, start, goal).encode("ascii")).hexdigest()


def _build(
    width: int,
    height: int,
    *,
    walls: tuple[Position, ...] = (),
    hazards: tuple[Position, ...] = (),
) -> Cells:
    grid = [[EMPTY] * width for _ in range(height)]
    for x, y in walls:
        grid[y][x] = WALL
    for x, y in hazards:
        grid[y][x] = HAZARD
    return tuple(tuple(row) for row in grid)


def standard_layout(name: str) -> GridMap:
    """One of ``simple``, ``maze``, ``hazard``: 10x10, start (0,0), goal (9,9).

    Raises ``GridworldError`` (field ``map``) for any other name.
    """
    if name == "simple":
        cells = _build(10, 10)
    elif name == "maze":
        walls = tuple((3, y) for y in (0, 1, 2, 3, 5, 6, 7, 8, 9)) + tuple(
            (6, y) for y in (1, 2, 3, 4, 5, 7, 8, 9)
        )
        cells = _build(10, 10, walls=walls)
    elif name == "hazard":
        hazards = ((2, 2), (2, 3), (2, 4), (5, 5), (5, 6), (5, 7), (7, 2), (7, 3))
        cells = _build(10, 10, walls=((4, 0), (4, 1), (4, 2)), hazards=hazards)
    else:
        raise GridworldError(
            "map",
            f"unknown layout {name!r}: expected one of {', '.join(LAYOUTS)} "
            "or a map in the text format",
        )
    return GridMap(name=name, cells=cells, start=(0, 0), goal=(9, 9))


def parse_map_text(text: str, *, name: str = "custom") -> GridMap:
    """Parse the text format; every problem is reported with its line number.

    Rows are lines of ``.`` (empty), ``#`` (wall), ``x`` (hazard), ``S`` (start,
    exactly one), ``G`` (goal, exactly one); all rows the same width; blank lines
    at the end are ignored. Start and goal must be connected through non-hazard
    cells. Raises ``GridworldError`` (field ``map``) listing every problem.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    problems: list[str] = []
    if not lines:
        raise GridworldError("map", "the map is empty")
    if len(lines) > MAX_SIDE or max(len(line) for line in lines) > MAX_SIDE:
        raise GridworldError("map", f"a map is at most {MAX_SIDE}x{MAX_SIDE} cells")
    width = len(lines[0])
    starts: list[Position] = []
    goals: list[Position] = []
    rows: list[tuple[int, ...]] = []
    for y, line in enumerate(lines):
        if len(line) != width:
            problems.append(f"line {y + 1}: width {len(line)}, expected {width}")
        row = []
        for x, char in enumerate(line):
            if char not in CELL_CHARS:
                problems.append(
                    f"line {y + 1}: unknown cell {char!r} at column {x + 1}"
                )
                row.append(EMPTY)
                continue
            if char == "S":
                starts.append((x, y))
            elif char == "G":
                goals.append((x, y))
            row.append(CELL_CHARS[char])
        rows.append(tuple(row))
    if len(starts) != 1:
        problems.append(f"expected exactly one start S, found {len(starts)}")
    if len(goals) != 1:
        problems.append(f"expected exactly one goal G, found {len(goals)}")
    if problems:
        raise GridworldError("map", "; ".join(problems))
    grid = GridMap(name=name, cells=tuple(rows), start=starts[0], goal=goals[0])
    if distances_from(grid.cells, grid.goal)[grid.start[1]][grid.start[0]] < 0:
        raise GridworldError(
            "map", "the goal cannot be reached from the start without crossing a hazard"
        )
    return grid


@lru_cache(maxsize=1024)
def distances_from(cells: Cells, target: Position) -> tuple[tuple[int, ...], ...]:
    """BFS step counts to ``target`` through non-wall, non-hazard cells.

    ``UNREACHABLE`` (-1) where no safe path exists; neighbours in action order.
    Cached per (cells, target): the result is immutable.
    """
    height, width = len(cells), len(cells[0])
    dist = [[UNREACHABLE] * width for _ in range(height)]
    tx, ty = target
    dist[ty][tx] = 0
    queue = deque([target])
    steps = tuple(DELTAS[a] for a in ("N", "S", "E", "W"))
    while queue:
        x, y = queue.popleft()
        here = dist[y][x] + 1
        for dx, dy in steps:
            nx, ny = x + dx, y + dy
            if (
                0 <= nx < width
                and 0 <= ny < height
                and dist[ny][nx] < 0
                and cells[ny][nx] == EMPTY
            ):
                dist[ny][nx] = here
                queue.append((nx, ny))
    return tuple(tuple(row) for row in dist)


def shortest_path_length(cells: Cells, source: Position, target: Position) -> int:
    """Safe shortest-path length from ``source`` to ``target``, -1 if none."""
    return distances_from(cells, target)[source[1]][source[0]]


class SplitMix64:
    """A tiny integer PRNG (splitmix64), identical on every platform."""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int) -> None:
        self.state = seed & self.MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)


def generate_map(
    *,
    seed: int,
    width: int = 10,
    height: int = 10,
    wall_permille: int = 150,
    hazard_permille: int = 100,
) -> GridMap:
    """A random solvable map: start top-left, goal bottom-right.

    Each cell is a wall with probability ``wall_permille``/1000 and a hazard with
    ``hazard_permille``/1000; layouts whose start and goal are not connected
    through safe cells are redrawn (up to 1000 draws). Same arguments, same map.
    """
    if not (2 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise GridworldError(
            "map", f"sides must be 2..{MAX_SIDE} wide, 1..{MAX_SIDE} high"
        )
    if (
        wall_permille < 0
        or hazard_permille < 0
        or wall_permille + hazard_permille > 600
    ):
        raise GridworldError(
            "map", "wall and hazard densities must be >= 0, together <= 600"
        )
    rng = SplitMix64(seed)
    start, goal = (0, 0), (width - 1, height - 1)
    for _ in range(1000):
        grid = []
        for y in range(height):
            row = []
            for x in range(width):
                draw = rng.next() % 1000
                if (x, y) in (start, goal):
                    row.append(EMPTY)
                elif draw < wall_permille:
                    row.append(WALL)
                elif draw < wall_permille + hazard_permille:
                    row.append(HAZARD)
                else:
                    row.append(EMPTY)
            grid.append(tuple(row))
        cells = tuple(grid)
        if distances_from(cells, goal)[start[1]][start[0]] >= 0:
            name = f"generated-{seed}-{width}x{height}"
            return GridMap(name=name, cells=cells, start=start, goal=goal)
    raise GridworldError("map", "no solvable map found for these densities")
