"""Governed gridworld steps per second, next to MiniGrid and a lean loop.

    .venv/bin/pip install -e '.[bench]'      # gymnasium + minigrid
    .venv/bin/python bench/gridworld.py

Measured in the same run, on the same machine:

1. MiniGrid's ``env.step`` on ``MiniGrid-Empty-8x8-v0`` with seeded random
   actions, ``reset`` on termination inside the timed loop (the reference);
2. a lean pure-Python hazard-grid loop written here: tuple state, 5x5 patch,
   hazard check, seeded drift, greedy move, no proposer objects, no governor,
   no receipts (the ceiling for plain Python);
3. evalsite's governed episodes: planner proposer, lexicographic governor,
   coherence kernel, hash-chained receipts with Merkle proposal roots, on the
   ``hazard`` layout with a drifting goal;
4. ``replay_verify`` over those receipts (re-running and comparing them).

Rates are steps per CPU second of this process (``time.process_time``), so
that other load on the machine skews the ratios less than wall time would.

Aims: governed >= 10x MiniGrid and >= 50% of the lean loop; replay at least as
fast as running. Without minigrid installed the MiniGrid row says so and the
other rows still run.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gridworld.core.config import BatchConfig, run_cases  # noqa: E402
from gridworld.core.grid import standard_layout  # noqa: E402
from gridworld.core.replay import replay_verify  # noqa: E402

MINIGRID_STEPS = 20_000
# CPU time of this process: on a machine shared with other work, wall time
# swings with the load between the rows, CPU time much less.
clock = time.process_time
LEAN_STEPS = 200_000
EPISODES = 400


def minigrid_rate() -> float | None:
    try:
        import gymnasium
        import minigrid  # noqa: F401  (registers the MiniGrid environments)
        import numpy as np
    except ImportError:
        return None
    env = gymnasium.make("MiniGrid-Empty-8x8-v0")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 3, size=MINIGRID_STEPS)
    start = clock()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(int(action))
        if terminated or truncated:
            env.reset()
    return MINIGRID_STEPS / (clock() - start)


def lean_rate() -> float:
    grid = standard_layout("hazard").cells
    height, width = len(grid), len(grid[0])
    padded = [[1] * (width + 4) for _ in range(height + 4)]
    for y in range(height):
        for x in range(width):
            padded[y + 2][x + 2] = grid[y][x]
    moves = ((0, -1), (0, 1), (1, 0), (-1, 0), (0, 0))
    x, y, gx, gy, s = 0, 0, 9, 9, 12345
    hazards = 0
    start = clock()
    for t in range(LEAN_STEPS):
        if t % 25 == 0:
            s = (1103515245 * s + 12345) % 2**31
            if grid[(s // width) % height][s % width] == 0:
                gx, gy = s % width, (s // width) % height
        patch = tuple(tuple(row[x : x + 5]) for row in padded[y : y + 5])
        best, best_d = (0, 0), abs(gx - x) + abs(gy - y)
        for dx, dy in moves:
            cell = patch[2 + dy][2 + dx]
            d = abs(gx - x - dx) + abs(gy - y - dy)
            if cell == 0 and d < best_d:
                best, best_d = (dx, dy), d
        x, y = x + best[0], y + best[1]
        if grid[y][x] == 2:
            hazards += 1
        if (x, y) == (gx, gy):
            x, y = 0, 0
    assert hazards == 0
    return LEAN_STEPS / (clock() - start)


def main() -> int:
    batch = BatchConfig(map=standard_layout("hazard"), episodes=EPISODES, seed=1)
    start = clock()
    results = run_cases(batch, list(range(EPISODES)))
    run_s = clock() - start
    steps = sum(r.receipt["metrics"]["steps"] for _, r in results)
    violations = sum(r.receipt["metrics"]["safety_violations"] for _, r in results)
    start = clock()
    verified = sum(1 for _, r in results if replay_verify(r.receipt).ok)
    replay_s = clock() - start
    governed, replay = steps / run_s, steps / replay_s
    lean = lean_rate()
    reference = minigrid_rate()

    print(f"governed episodes: {EPISODES} ({steps} steps), violations {violations}")
    print(f"  governed steps/s with receipts : {governed:>10,.0f}")
    print(
        f"  replay_verify steps/s          : {replay:>10,.0f}  ({verified}/{EPISODES} verified)"
    )
    print(f"  lean loop steps/s (no receipts): {lean:>10,.0f}")
    if reference is None:
        print(
            "  MiniGrid env.step steps/s      :    skipped (minigrid not installed: "
            "pip install -e '.[bench]')"
        )
    else:
        print(f"  MiniGrid env.step steps/s      : {reference:>10,.0f}")
        print(f"governed / MiniGrid : {governed / reference:5.1f}x (aim >= 10x)")
    print(f"governed / lean     : {governed / lean:5.1%} (aim >= 50%)")
    print(f"replay / run        : {replay / governed:5.2f}x (aim >= 1.0x)")
    return 0 if verified == EPISODES and violations == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
