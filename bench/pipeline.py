"""Throughput of the thinking pipeline on one core.

Prints thoughts/s (per CPU-second, on one pinned core) for ``sanitize`` alone
and for the whole pipeline (render -> prompt -> scripted model -> sanitize ->
ground -> eligibility), each next to its target, with PASS or BELOW. Runs in
well under 20 s:

    .venv/bin/python bench/pipeline.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stream.core.adapters import SAMPLERS, ScriptedAdapter  # noqa: E402
from stream.core.frames import facts_from_wire  # noqa: E402
from stream.core.pipeline import run_pipeline  # noqa: E402
from stream.core.sanitizer import sanitize  # noqa: E402
from stream.core.types import PromptProfile  # noqa: E402

SANITIZE_TARGET = 50_000
PIPELINE_TARGET = 10_000

# Model output as it comes: mostly plain, some with tags, INTENT lines,
# fences, quotes, leaked prompt text, loops and trailing junk.
THOUGHTS = (
    "It is daytime in the plains and two cows graze about 12m away.",
    "My health is 20/20 and hunger 18/20. Nothing is moving nearby.",
    "A zombie is 5m away and hostile.\n[GOAL: navigate away from zombie]",
    "I'm carrying oak log and stone. [GOAL: craft crafting_table 1]",
    "The sun is setting over the forest.\nINTENT: shelter",
    '"It is quiet here, only the wind in the birch trees."',
    "```\nI notice a sheep near the river.\n```",
    "You are my private inner thought. I see a creeper at 9m.",
    "I see the cave cave cave cave entrance below me.",
    "I walk along the ridge and I walk along the ridge and I walk along the"
    " ridge again.",
    "I am hungry. 3",
    "I have iron ore. [GOAL: smelt iron_ore 3] INTENT: craft",
    "Night has fallen and skeletons are active. And then the",
    "Health 14/20, hunger 9/20. [goal: get bread]",
    "It is dawn in the taiga; a fox watches from 20m.",
    "I notice a villager about 30m away. [GOAL: find village]",
)

FRAME = {
    "facts": {
        "bot": {
            "position": {"x": 12.4, "y": 64, "z": -30.6},
            "health": 14,
            "hunger": 9,
            "inventorySummary": [
                {"item": "oak_log", "count": 6},
                {"item": "stone", "count": 12},
                {"item": "iron_ore", "count": 3},
                {"item": "bread", "count": 1},
            ],
            "timeOfDay": "sunset",
            "threatLevel": "low",
        },
        "world": {
            "biome": "plains",
            "weather": "clear",
            "nearbyEntities": [
                {"kind": "cow", "count": 2, "distanceMin": 12.2},
                {"kind": "zombie", "count": 1, "distanceMin": 5, "hostile": True},
            ],
        },
    },
    "deltas": [{"type": "damage_taken", "value": 2}],
    "memory": {
        "episodic": [{"timestampMs": 1000, "text": "Saw a cave to the east."}],
        "semantic": [{"key": "home", "text": "Base at (100, 64, 200)."}],
    },
}


def _pin_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to cpu {cpu}"
    return "not pinned (no sched_setaffinity)"


def _rate(work, seconds: float) -> float:
    """Thoughts per CPU-second of this process, best of three rounds.

    CPU time (``time.process_time``) rather than wall time, so other
    processes on a shared machine do not lower the figure; with the process
    pinned to one core it is the single-core rate.
    """
    best = 0.0
    rounds = 3
    for _ in range(rounds):
        done = 0
        started = time.process_time()
        deadline = started + seconds / rounds
        while True:
            done += work()
            now = time.process_time()
            if now >= deadline:
                break
        best = max(best, done / (now - started))
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per figure")
    args = parser.parse_args()
    where = f"{platform.machine()}; {_pin_one_core()}"
    print(f"python {platform.python_version()} on {where}")

    def sanitize_batch() -> int:
        for thought in THOUGHTS:
            sanitize(thought)
        return len(THOUGHTS)

    facts = facts_from_wire(FRAME)
    ids = [f"s{i}" for i in range(len(THOUGHTS))]
    adapter = ScriptedAdapter.from_lines(
        [
            json.dumps({"scenario_id": sid, "output": t})
            for sid, t in zip(ids, THOUGHTS, strict=True)
        ],
        source="bench",
    )
    sampler = SAMPLERS["standard"]
    profiles = (PromptProfile.MINIMAL, PromptProfile.BALANCED, PromptProfile.RICH)

    def pipeline_batch() -> int:
        for i, sid in enumerate(ids):
            run_pipeline(
                facts,
                profile=profiles[i % 3],
                adapter=adapter,
                sampler=sampler,
                seed=7,
                clock=time.perf_counter,
                scenario_id=sid,
            )
        return len(ids)

    results = (
        ("sanitize", _rate(sanitize_batch, args.seconds), SANITIZE_TARGET),
        (
            "pipeline, scripted model",
            _rate(pipeline_batch, args.seconds),
            PIPELINE_TARGET,
        ),
    )
    below = 0
    for name, rate, target in results:
        verdict = "PASS" if rate >= target else "BELOW"
        below += verdict == "BELOW"
        print(f"{name:28s} {rate:>10,.0f} thoughts/s  target >= {target:,}  {verdict}")
    return 0 if below == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
