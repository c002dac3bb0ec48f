"""Reproducible result bundles of a suite run (EV-C4).

Decides the run id, the on-disk layout and the content of the JSON
artifacts; writes them atomically.

Layout (exact, the stream contract EV-C4), under a configurable artifacts root::

    <root>/evals/<SUITE>/<PROFILE>/<RUN_ID>/summary.json
    <root>/evals/<SUITE>/<PROFILE>/<RUN_ID>/scenarios/<SCENARIO_ID>.json

Invariants:
- Inputs are plain values and dicts (no ``stream.core`` types), so the
  bundle format does not move when the pipeline's types do.
- Keys on disk are camelCase (as the eval-store contract's formats are) and
  every document carries ``schemaVersion``; metric names inside ``metrics``
  stay the contract's snake_case (``action_rate``...).
- Files are written as sorted-key, 2-space-indented UTF-8 JSON with a
  trailing newline, via a temp file in the same directory + ``os.replace``
  (``evals.core.files``): a reader sees the old file or the new one, never
  half of one.
- ``summary.json`` is written after every scenario file, so its presence
  means the bundle is complete.
- Nothing here reads the clock or global randomness: ``now``, ``rng`` and
  ISO timestamps come in as arguments.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.core.files import write_json_atomic
from evals.core.scenario_artifact import SCHEMA_VERSION, ModelConfig
from evals.core.suite_types import EvalVerdict

RUN_ID_PATTERN = re.compile(r"^[0-9]{14}-[0-9a-f]{6}$")
RUN_STATUSES = frozenset({"running", "completed", "failed", "partial"})
RUN_MODES = frozenset({"thought_only", "end_to_end"})


@dataclass(frozen=True, slots=True)
class BundlePaths:
    """Where one run's bundle lives."""

    run_dir: Path
    summary: Path
    scenarios_dir: Path

    def scenario(self, scenario_id: str) -> Path:
        """``scenarios/<SCENARIO_ID>.json`` of this run."""
        return self.scenarios_dir / f"{_component(scenario_id, 'scenario_id')}.json"


def new_run_id(now: datetime, rng: random.Random) -> str:
    """``YYYYMMDDHHmmss-<6hex>``: ``now`` in UTC, then 24 bits of ``rng``.

    ``now`` must be timezone-aware (a naive time would silently depend on
    the machine's zone). Same ``now`` and rng state give the same id.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    return f"{now.astimezone(UTC):%Y%m%d%H%M%S}-{rng.getrandbits(24):06x}"


def bundle_paths(root: Path, suite_id: str, profile: str, run_id: str) -> BundlePaths:
    """The bundle paths of a run under the artifacts ``root``.

    Raises ``ValueError`` for a run id not shaped like ``new_run_id``'s or a
    suite id / profile that is not a single safe path component.
    """
    if not RUN_ID_PATTERN.match(run_id):
        raise ValueError(f"run_id must look like YYYYMMDDHHmmss-<6hex>: {run_id!r}")
    run_dir = (
        root
        / "evals"
        / _component(suite_id, "suite_id")
        / _component(profile, "profile")
        / run_id
    )
    return BundlePaths(
        run_dir=run_dir,
        summary=run_dir / "summary.json",
        scenarios_dir=run_dir / "scenarios",
    )


def scenario_artifact_path(scenario_id: str) -> str:
    """A scenario artifact's path relative to the run directory."""
    return f"scenarios/{_component(scenario_id, 'scenario_id')}.json"


def summary_artifact(
    *,
    run_id: str,
    suite_id: str,
    suite_sha256: str,
    suite_line_count: int,
    profile: str,
    mode: str,
    model: ModelConfig,
    status: str,
    started_at: str,
    completed_at: str | None,
    metrics: Mapping[str, float | int],
    verdict: EvalVerdict,
    suite_path: str | None = None,
) -> dict[str, Any]:
    """The run's rollup document (``summary.json``).

    Keys: ``schemaVersion``; ``run`` {``runId``, ``suiteId``, ``suitePath``,
    ``suiteSha256``, ``suiteLineCount``, ``profile``, ``mode``, ``model``
    (id, adapter, sampler, samplerParams, seed), ``status``, ``startedAt``,
    ``completedAt``, ``durationMs``}; ``totalCases``, ``passedCases``,
    ``failedCases`` (as in the eval-store contract's run summary); ``metrics`` (the flat
    ``metrics_to_wire`` map); ``verdict`` {``pass``, ``failedProperties``};
    ``scenarios`` [{``scenarioId``, ``pass``, ``failReasons``,
    ``artifact`` (path relative to the run directory)}] in suite order.

    ``durationMs`` is computed from the two ISO timestamps (null while
    ``completed_at`` is None). Raises ``ValueError`` on an unknown status or
    mode, or a timestamp that is not ISO 8601.
    """
    check_mode(mode)
    if status not in RUN_STATUSES:
        raise ValueError(f"status must be one of {sorted(RUN_STATUSES)}: {status!r}")
    passed_cases = sum(1 for s in verdict.per_scenario if s.passed)
    return {
        "schemaVersion": SCHEMA_VERSION,
        "run": {
            "runId": run_id,
            "suiteId": suite_id,
            "suitePath": suite_path,
            "suiteSha256": suite_sha256,
            "suiteLineCount": suite_line_count,
            "profile": profile,
            "mode": mode,
            "model": model.to_wire(),
            "status": status,
            "startedAt": started_at,
            "completedAt": completed_at,
            "durationMs": _duration_ms(started_at, completed_at),
        },
        "totalCases": len(verdict.per_scenario),
        "passedCases": passed_cases,
        "failedCases": len(verdict.per_scenario) - passed_cases,
        "metrics": dict(metrics),
        "verdict": {
            "pass": verdict.passed,
            "failedProperties": list(verdict.failed_properties),
        },
        "scenarios": [
            {
                "scenarioId": s.scenario_id,
                "pass": s.passed,
                "failReasons": list(s.fail_reasons),
                "artifact": scenario_artifact_path(s.scenario_id),
            }
            for s in verdict.per_scenario
        ],
    }


def write_bundle(
    root: Path,
    *,
    suite_id: str,
    profile: str,
    run_id: str,
    summary: Mapping[str, Any],
    scenarios: Mapping[str, Mapping[str, Any]],
) -> BundlePaths:
    """Write every scenario artifact, then ``summary.json``; returns the paths.

    ``scenarios`` maps scenario id to its ``ScenarioArtifact.to_wire`` document.
    Existing files of the same run are replaced atomically, so rewriting a
    bundle after a resumed run is safe.
    """
    paths = bundle_paths(root, suite_id, profile, run_id)
    for scenario_id in scenarios:
        write_json_atomic(paths.scenario(scenario_id), scenarios[scenario_id])
    write_json_atomic(paths.summary, summary)
    return paths


def _component(value: str, name: str) -> str:
    # Ids become directory and file names: refuse anything that could escape
    # the run directory or name a hidden/temp file.
    if (
        not value
        or value in (".", "..")
        or value.startswith(".")
        or any(c in value for c in "/\\\x00")
    ):
        raise ValueError(f"{name} is not a safe path component: {value!r}")
    return value


def check_mode(mode: str) -> None:
    if mode not in RUN_MODES:
        raise ValueError(f"mode must be one of {sorted(RUN_MODES)}: {mode!r}")


def _duration_ms(started_at: str, completed_at: str | None) -> float | None:
    if completed_at is None:
        return None
    try:
        delta = datetime.fromisoformat(completed_at) - datetime.fromisoformat(
            started_at
        )
    except TypeError as exc:
        raise ValueError(
            f"startedAt and completedAt mix zoned and naive times: "
            f"{started_at!r}, {completed_at!r}"
        ) from exc
    return round(delta.total_seconds() * 1000, 3)
