"""Proposers: each step they score all five actions, in action order.

``greedy`` is the benchmark's formula ``score = -V_task + alpha(b)/sqrt(N(s')+1)``
with ``alpha(b) = min(b / b_max, 1)``, ``V_task`` the Manhattan distance after
the move and ``N(s')`` this episode's visits to the cell the move lands on; the
bonus is really added (in QFixed integers, with ``math.isqrt``). ``planner``
plans a shortest path by BFS over the map it has seen through its patches
(unseen cells optimistic, known walls and hazards impassable); its map memory
persists across the episodes it plays, so later episodes plan on a better map.
Neither ever reads cells outside what its patches showed it.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from math import isqrt
from typing import NamedTuple, cast

from gridworld.core.env import PATCH_RADIUS, GridState, Observation
from gridworld.core.memory import (
    MEMORY_CHARS,
    UNKNOWN,
    blocked_cells,
    memory_map,
    unknown_rows,
)
from gridworld.core.types import ACTIONS, DELTAS, EMPTY, HAZARD, STAY, WALL, Position, Q

PROPOSER_KINDS = ("greedy", "planner")
# (action, dx, dy, patch row, patch column) in action order.
_STEPS = tuple(
    (a, dx, dy, PATCH_RADIUS + dy, PATCH_RADIUS + dx)
    for a, (dx, dy) in ((a, DELTAS[a]) for a in ACTIONS)
)


class Proposal(NamedTuple):
    """One scored action. ``target`` is the cell aimed at, ``landing`` where the
    proposer expects to end (its own belief: in place when it knows a wall)."""

    action: str
    target: Position
    landing: Position
    v_task: int
    score: int
    bonus: int

    def encode(self) -> bytes:
        """The canonical bytes hashed for receipts (fixed field order)."""
        return (
            f"{self.action}|{self.target[0]},{self.target[1]}|"
            f"{self.landing[0]},{self.landing[1]}|{self.v_task}|{self.score}|{self.bonus}"
        ).encode("ascii")

    def digest(self) -> str:
        return hashlib.sha256(self.encode()).hexdigest()


def _patch_cell(obs: Observation, dx: int, dy: int) -> int:
    return obs.patch[PATCH_RADIUS + dy][PATCH_RADIUS + dx]


# Proposals kept per plan (bounded: plans are cached by the thousand).
PLAN_PROPOSALS_MAX = 64


class Plan:
    """BFS distances to a goal over a known map (``rows[y][x]``, -1 where
    unreachable), and the proposals already made from it.

    ``proposals`` is keyed by the agent's position and the four cells its patch
    shows around it (WALL or HAZARD there changes a proposal), which with the
    plan fix the five proposals completely.
    """

    __slots__ = ("proposals", "rows")

    def __init__(self, rows: list[list[int]]) -> None:
        self.rows = rows
        self.proposals: dict[tuple[int, ...], tuple[Proposal, ...]] = {}


@lru_cache(maxsize=4096)
def _bfs(width: int, height: int, blocked: tuple[int, ...], goal: Position) -> Plan:
    """BFS steps to ``goal`` on a ``width`` x ``height`` grid whose ``blocked``
    cells are flat indices ``(y+1)*(width+2)+x+1`` of a grid framed by blocked
    cells (so the inner loop needs no bounds checks); -1 where unreachable.

    Cached: the plans of a lane's episodes repeat once its map is learned.
    Callers must not mutate the result.
    """
    stride = width + 2
    dist = [-2] * (stride * (height + 2))
    for y in range(height):
        base = (y + 1) * stride + 1
        dist[base : base + width] = [UNKNOWN] * width
    for index in blocked:
        dist[index] = -2
    start = (goal[1] + 1) * stride + goal[0] + 1
    dist[start] = 0
    queue = deque([start])
    offsets = (-stride, stride, 1, -1)
    while queue:
        index = queue.popleft()
        here = dist[index] + 1
        for offset in offsets:
            near = index + offset
            if dist[near] == UNKNOWN:
                dist[near] = here
                queue.append(near)
    return Plan(
        [
            [
                max(d, UNKNOWN)
                for d in dist[(y + 1) * stride + 1 : (y + 1) * stride + 1 + width]
            ]
            for y in range(height)
        ]
    )


class GreedyProposer:
    """Distance to goal plus a budget-scaled novelty bonus; visits reset per episode."""

    kind = "greedy"

    def __init__(self, *, b_max: int) -> None:
        self.b_max = max(b_max, 1)
        self.visits: dict[Position, int] = {}

    def start_episode(self, memory: str) -> None:
        self.visits = {}

    def request(self, action: str) -> None:
        raise ValueError("the greedy proposer takes no outside actions")

    def requested_actions(self) -> tuple[str, ...]:
        return ()

    def memory_text(self) -> str:
        return ""

    def observe(self, state: GridState, obs: Observation) -> int:
        """Count the visit to the current cell; one memory write."""
        self.visits[state.position] = self.visits.get(state.position, 0) + 1
        return 1

    def feedback(self, rejected_targets: tuple[Position, ...]) -> int:
        return 0

    def propose(
        self, state: GridState, obs: Observation, budget: int
    ) -> tuple[Proposal, ...]:
        alpha = min(budget * Q // self.b_max, Q)
        position = state.position
        x, y = position
        gx, gy = state.goal
        patch = obs.patch
        proposals = []
        for action, dx, dy, row, column in _STEPS:
            target = (x + dx, y + dy)
            landing = position if patch[row][column] == WALL else target
            v_task = abs(gx - landing[0]) + abs(gy - landing[1])
            visits = self.visits.get(landing, 0)
            bonus = alpha * 1000 // isqrt((visits + 1) * 1_000_000)
            proposals.append(
                Proposal(action, target, landing, v_task, bonus - v_task * Q, bonus)
            )
        return tuple(proposals)


class PlannerProposer:
    """BFS over the seen map; remembers the map across episodes it plays.

    Cells whose move the governor rejected are avoided for the rest of the
    episode (the kernel would refuse them again soon), unless that leaves no
    route at all.
    """

    kind = "planner"

    def __init__(self, *, width: int, height: int) -> None:
        self.width = width
        self.height = height
        # Copied on the first write (``_own_memory``): an episode that starts
        # from a map it already knows whole never copies it.
        self.known: Sequence[Sequence[int]] = unknown_rows(width, height)
        self._shared = True
        self.avoid: set[Position] = set()
        self._plan_key: tuple[Position, int] | None = None
        self._plan = Plan([])
        self._free_plan: Plan | None = None
        self._version = 0
        # Positions whose patch is in memory already: the map never changes,
        # so observing from there again writes nothing.
        self._seen_from: AbstractSet[Position] = frozenset()
        # Derived from ``known``; rebuilt only after a write changes it.
        self._blocked: tuple[int, ...] | None = None
        self._memory_text: str | None = None

    def start_episode(self, memory: str) -> None:
        """Start from a remembered map (``memory_text`` of an earlier episode)."""
        if memory:
            remembered = memory_map(memory, self.width, self.height)
            self.known = remembered.rows
            # Observing from these positions would write nothing.
            self._seen_from = remembered.complete
            self._shared = True
            self._blocked = remembered.blocked
            self._memory_text = remembered.text
        self.avoid = set()
        self._version += 1
        self._plan_key = None

    def request(self, action: str) -> None:
        raise ValueError("the planner takes no outside actions")

    def requested_actions(self) -> tuple[str, ...]:
        return ()

    def memory_text(self) -> str:
        """The known map: ``?`` unseen, ``.`` empty, ``#`` wall, ``x`` hazard."""
        if self._memory_text is None:
            self._memory_text = "\n".join(
                "".join([MEMORY_CHARS[c] for c in row]) for row in self.known
            )
        return self._memory_text

    def _own_memory(self) -> None:
        """Copy the shared rows and positions before the first write."""
        self.known = [list(row) for row in self.known]
        self._seen_from = set(self._seen_from)
        self._shared = False

    def observe(self, state: GridState, obs: Observation) -> int:
        """Write newly seen cells into memory; returns how many were written."""
        if state.position in self._seen_from:
            return 0
        if self._shared:
            self._own_memory()
        cast(set[Position], self._seen_from).add(state.position)
        known = cast(list[list[int]], self.known)
        x0, y0 = state.position[0] - PATCH_RADIUS, state.position[1] - PATCH_RADIUS
        writes = 0
        blocking = False
        for py, row in enumerate(obs.patch):
            y = y0 + py
            if not 0 <= y < self.height:
                continue
            known_row = known[y]
            for px, cell in enumerate(row):
                x = x0 + px
                if 0 <= x < self.width and known_row[x] == UNKNOWN:
                    known_row[x] = cell
                    writes += 1
                    blocking = blocking or cell != EMPTY
        if writes:
            self._memory_text = None
        # Unseen cells are planned as empty: only a wall or hazard changes a plan.
        if blocking:
            self._version += 1
            self._blocked = None
        return writes

    def feedback(self, rejected_targets: tuple[Position, ...]) -> int:
        """Avoid cells whose move the governor refused; returns new memory writes."""
        writes = 0
        for target in rejected_targets:
            if target not in self.avoid:
                self.avoid.add(target)
                writes += 1
        if writes:
            self._version += 1
        return writes

    def _distances(self, goal: Position, use_avoid: bool) -> Plan:
        """BFS steps to ``goal`` over the known map; -1 where there is no route."""
        if self._blocked is None:
            self._blocked = blocked_cells(self.known, self.width)
        blocked = self._blocked
        if use_avoid and self.avoid:
            stride = self.width + 2
            blocked += tuple(sorted((y + 1) * stride + x + 1 for x, y in self.avoid))
        return _bfs(self.width, self.height, blocked, goal)

    def _plan_for(self, state: GridState) -> Plan:
        key = (state.goal, self._version)
        if self._plan_key != key:
            self._plan = self._distances(state.goal, True)
            self._free_plan = None
            self._plan_key = key
        x, y = state.position
        plan = self._plan
        rows = plan.rows
        if rows[y][x] >= 0:  # Stay's own cell: the common case, checked first
            return plan
        for dx, dy in DELTAS.values():
            nx, ny = x + dx, y + dy
            if 0 <= nx < self.width and 0 <= ny < self.height and rows[ny][nx] >= 0:
                return plan
        if self._free_plan is None:
            self._free_plan = self._distances(state.goal, False)
        return self._free_plan

    def propose(
        self, state: GridState, obs: Observation, budget: int
    ) -> tuple[Proposal, ...]:
        position = state.position
        plan = self._plan
        # _plan_for's common case inlined (it runs every step): the current
        # plan, when it is for this goal and map and reaches this cell.
        if (
            self._plan_key != (state.goal, self._version)
            or plan.rows[position[1]][position[0]] < 0
        ):
            plan = self._plan_for(state)
        patch = obs.patch
        r = PATCH_RADIUS
        key = (
            *position,
            patch[r - 1][r],
            patch[r + 1][r],
            patch[r][r + 1],
            patch[r][r - 1],
        )
        cached = plan.proposals.get(key)
        if cached is not None:
            return cached
        far = self.width * self.height + 1
        rows = plan.rows
        x, y = position
        proposals = []
        for action, dx, dy, row, column in _STEPS:
            target = (x + dx, y + dy)
            cell = patch[row][column]
            landing = position if cell == WALL else target
            distance = rows[landing[1]][landing[0]]
            if distance < 0 or (cell == HAZARD and action != STAY):
                distance = far
            proposals.append(
                Proposal(action, target, landing, distance, -distance * Q, 0)
            )
        result = tuple(proposals)
        if len(plan.proposals) < PLAN_PROPOSALS_MAX:
            plan.proposals[key] = result
        return result


class ExternalProposer:
    """An outside agent (an RL policy through the Gymnasium wrapper) picks.

    Its chosen action scores 1.0, Stay 0 and every other move -1.0, so a
    governor that refuses the choice falls back to Stay. Replay plays the
    recorded ``actions`` of the config in order.
    """

    kind = "external"

    def __init__(self, actions: tuple[str, ...]) -> None:
        self.script = actions
        self.taken: list[str] = []
        self._next: str | None = None

    def start_episode(self, memory: str) -> None:
        self.taken = []

    def memory_text(self) -> str:
        return ""

    def request(self, action: str) -> None:
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}")
        self._next = action

    def requested_actions(self) -> tuple[str, ...]:
        return tuple(self.taken)

    def observe(self, state: GridState, obs: Observation) -> int:
        return 0

    def feedback(self, rejected_targets: tuple[Position, ...]) -> int:
        return 0

    def propose(
        self, state: GridState, obs: Observation, budget: int
    ) -> tuple[Proposal, ...]:
        if self._next is not None:
            wanted, self._next = self._next, None
        else:
            step = len(self.taken)
            wanted = self.script[step] if step < len(self.script) else STAY
        self.taken.append(wanted)
        x, y = state.position
        gx, gy = state.goal
        proposals = []
        for action in ACTIONS:
            dx, dy = DELTAS[action]
            target = (x + dx, y + dy)
            landing = state.position if _patch_cell(obs, dx, dy) == WALL else target
            score = Q if action == wanted else (0 if action == STAY else -Q)
            v_task = abs(gx - landing[0]) + abs(gy - landing[1])
            proposals.append(Proposal(action, target, landing, v_task, score, 0))
        return tuple(proposals)


Proposer = GreedyProposer | PlannerProposer | ExternalProposer


def make_proposer(
    kind: str, *, width: int, height: int, b_max: int, actions: tuple[str, ...] = ()
) -> Proposer:
    if kind == "greedy":
        return GreedyProposer(b_max=b_max)
    if kind == "planner":
        return PlannerProposer(width=width, height=height)
    if kind == "external":
        return ExternalProposer(actions)
    raise ValueError(kind)
