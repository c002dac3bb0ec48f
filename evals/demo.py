"""Demo data of the eval harness: recorded runs of the two shipped suites.

Registered in ``DEMO_DATA_LOADERS``; ``make demo`` calls ``load_demo``. Each
run executes synchronously through the harness service (no worker needed)
and carries a ``demoKey`` in its config, so loading twice records nothing
new. One smoke run is end_to_end (its own stream, tasks from planning); one
idle-v1 run uses the regressed script and FAILs (compulsions), so the pages
show a regression next to passing runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from evals.selectors.runs import harness_run_list
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_execute

# (demo key, suite, profile, mode, script or None for the default, seed)
DEMO_RUNS: tuple[tuple[str, str, str, str, str | None, int], ...] = (
    ("smoke-minimal", "smoke", "minimal", "thought_only", None, 1),
    ("smoke-balanced", "smoke", "balanced", "thought_only", None, 2),
    ("smoke-end-to-end", "smoke", "balanced", "end_to_end", None, 3),
    ("idle-v1-balanced", "idle-v1", "balanced", "thought_only", None, 1),
    ("idle-v1-rich", "idle-v1", "rich", "thought_only", None, 2),
    (
        "idle-v1-regressed",
        "idle-v1",
        "balanced",
        "thought_only",
        "idle-v1-regressed.script.jsonl",
        3,
    ),
)


def load_demo(*, owner: Any) -> str:
    """Record the demo runs that are not there yet; returns a one-line summary."""
    suites = Path(settings.EVALS_SUITES_DIR)
    recorded = []
    for key, suite, profile, mode, script, seed in DEMO_RUNS:
        if harness_run_list().filter(config__demoKey=key).exists():
            continue
        run = eval_run_create(
            suite_path=suites / f"{suite}.jsonl",
            profile=profile,
            mode=mode,
            model="scripted",
            script_path=suites / script if script else None,
            seed=seed,
            user=owner,
            schedule=False,
            started_via="demo",
            extra_config={"demoKey": key},
        )
        run = run_execute(run=run)
        recorded.append(f"{key}={'PASS' if run.verdict_passed else 'FAIL'}")
    if not recorded:
        return f"eval runs: all {len(DEMO_RUNS)} demo runs already recorded"
    return f"eval runs recorded: {', '.join(recorded)}"
