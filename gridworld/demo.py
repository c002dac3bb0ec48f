"""Demo data of the gridworld: two small batches on the ``hazard`` layout,
the governed planner and the ungoverned greedy baseline, run in-process.

Registered in ``DEMO_DATA_LOADERS``; loading twice records nothing new (a
batch of the demo benchmark is the marker).
"""

from __future__ import annotations

from typing import Any

from gridworld.models import EpisodeBatch
from gridworld.services.batches import batch_create, batch_run_here

DEMO_BATCHES = (
    {"map": "hazard", "episodes": 50, "proposer": "planner", "seed": 42},
    {
        "map": "hazard",
        "episodes": 20,
        "proposer": "greedy",
        "governor": "none",
        "seed": 42,
    },
)


def load_demo(*, owner: Any) -> str:
    """Run the demo batches once; returns a one-line summary."""
    if EpisodeBatch.objects.filter(
        run__benchmark__benchmark_id="gridworld:hazard:planner:lexicographic"
    ).exists():
        return "gridworld demo batches exist"
    lines = []
    for config in DEMO_BATCHES:
        batch = batch_create(
            config=config, user=owner, schedule=False, started_via="demo"
        )
        run = batch_run_here(batch)
        lines.append(
            f"batch {batch.pk} {run.benchmark_id}: {run.status}, "
            f"safety violations {run.metrics.get('safety_violations')}"
        )
    return "; ".join(lines)
