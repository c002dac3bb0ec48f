"""Subjects the reviews tests review: a scenario run of the smoke suite (and
a second one of the same suite, so the first has a previous run), a thought,
a gridworld episode and a keepalive decision. Each builder makes its records
the way the owning app stores them and returns them."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

SHIPPED_SUITES = Path(__file__).resolve().parents[2] / "evals" / "suites"
SMOKE_FIRST = "smoke:stable-plains"
EPISODE_CONFIG = {"map": "hazard", "episodes": 2, "seed": 3, "lane_size": 2}
DECISION_LINE = (
    "DISPATCH: ok=true path=gate reason=ok pr=#7 activation=99 agent=codex "
    "head=abc1234 cap=2 active=0 trace=ka-7-r1"
)


def suites_private(settings: Any, tmp_path: Path) -> Path:
    """Artifacts under ``tmp_path`` and a private copy of the shipped suites."""
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    target = tmp_path / "suites"
    if not target.exists():
        shutil.copytree(SHIPPED_SUITES, target)
    settings.EVALS_SUITES_DIR = target
    return target


def scenario_run(suites: Path) -> Any:
    """A finished thought-only run of the smoke suite on its script."""
    from tests.evals.harness_support import run_suite

    return run_suite(suites / "smoke.jsonl")


def episode_make() -> Any:
    """The first episode of a small finished gridworld batch."""
    from gridworld.models import Episode
    from tests.builders import batch_finished

    run = batch_finished(EPISODE_CONFIG)
    return Episode.objects.filter(batch__run=run).order_by("index").first()


def decision_make() -> Any:
    """A keepalive decision on PR 7 of acme/widgets."""
    from prkeepalive.models import Decision, PullRequest, Repository

    repo = Repository.objects.create(full_name="acme/widgets")
    pull = PullRequest.objects.create(repository=repo, number=7, title="Parser fix")
    return Decision.objects.create(
        pull=pull,
        repository=repo,
        lane="gate",
        ok=True,
        reason="ok",
        detail="every condition holds",
        agent="codex",
        head_sha="abc1234",
        cap=2,
        active=0,
        trace="ka-7-r1",
        line=DECISION_LINE,
    )
