"""A run's ``events.jsonl`` and its content-addressed bundle id.

Decides the structured event lines of a scenario eval run, in the shape the
reference harness writes them (one JSON object per line: ``type``,
``timestamp_ms``, ``run`` context, ``payload``), and the bundle id of its
summary. Invariants:

- Events are built from what the run stored (its scenario artifacts, in
  suite order), so the file is the same whoever writes it and however often
  a chunk was redelivered: ``eval_mode``, ``eval_suite_loaded``, then per
  scenario ``eval_scenario_started`` and ``eval_scenario_result`` (or
  ``eval_error`` for a scenario that errored), end-to-end runs add
  ``eval_thought_enqueued`` and ``eval_ack_result``, then ``eval_summary``.
- ``bundle_id`` hashes only what the outputs decided (configuration,
  versions, metrics but latencies, verdict, per-scenario results sorted by
  id), never times or run ids: same outputs, same id (16 hex characters).
- Pure: times come in with the documents; no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from core.json_bytes import compact_json_text
from evals.core.scenario_artifact import ScenarioArtifact
from stream.core.frames import PROFILE_BUDGETS
from stream.core.types import PromptProfile

EVENT_TYPES = frozenset(
    {
        "eval_mode",
        "eval_suite_loaded",
        "eval_scenario_started",
        "eval_scenario_result",
        "eval_thought_enqueued",
        "eval_ack_result",
        "eval_summary",
        "eval_error",
    }
)


def timestamp_ms(iso: str | None) -> int:
    """Milliseconds since the epoch of an ISO timestamp (0 when absent)."""
    if not iso:
        return 0
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


def run_context(
    *,
    run_id: str,
    mode: str,
    suite_id: str,
    profile: str,
    sampler: str,
    model_id: str,
    oracle_version: str | None,
) -> dict[str, Any]:
    """The ``run`` object carried by every event."""
    context: dict[str, Any] = {
        "run_id": run_id,
        "mode": mode,
        "suite_id": suite_id,
        "frame_profile": profile,
        "sampler_profile": sampler,
        "model_id": model_id,
    }
    if oracle_version is not None:
        context["oracle_version"] = oracle_version
    return context


def _event(
    kind: str, at: int, run: Mapping[str, Any], payload: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "type": kind,
        "timestamp_ms": at,
        "run": dict(run),
        "payload": dict(payload),
    }


def _frame_profile(profile: str) -> dict[str, Any]:
    budget = PROFILE_BUDGETS[PromptProfile(profile)]
    return {
        "name": profile,
        "facts_budget": budget.facts,
        "memory_budget": budget.memories,
    }


def _sampler(params: Mapping[str, Any] | None, name: str) -> dict[str, Any]:
    params = params or {}
    return {
        "name": params.get("name", name),
        "temperature": params.get("temperature"),
        "top_p": params.get("topP"),
        "max_tokens": params.get("maxTokens"),
    }


def _result_payload(artifact: ScenarioArtifact) -> dict[str, Any]:
    goal = artifact.extracted_goal
    grounding = artifact.grounding
    grounded = goal is not None and grounding.passed is not None
    hallucination = artifact.hallucination
    return {
        "scenario_id": artifact.scenario.scenario_id,
        "output": {
            "text": artifact.thought or "",
            "extracted_goal": (
                {"present": True, "action": goal["action"], "target": goal["target"]}
                if goal is not None
                else {"present": False}
            ),
            "grounding": (
                {
                    "pass": grounding.passed,
                    "reason": grounding.reason,
                    "referenced_facts": list(grounding.referenced_facts),
                    "violations": [
                        {"type": v.kind, "trigger": v.trigger}
                        for v in grounding.violations
                    ],
                }
                if grounded
                else None
            ),
            "convert_eligible": artifact.convert_eligible,
            "derived": True,
        },
        "checks": [
            {
                "check_id": "no_fabrication",
                "pass": hallucination is None,
                "reason": "No fabrication"
                if hallucination is None
                else f"Fabricated reference: {hallucination}",
            },
            {
                "check_id": "eligibility_derived",
                "pass": True,
                "reason": artifact.convert_eligible_reason,
            },
        ],
        "latency_ms": round(float(artifact.latency_ms)),
    }


def run_events(
    *,
    run: Mapping[str, Any],
    suite_path: str,
    suite_line_count: int,
    suite_sha256: str,
    sampler_params: Mapping[str, Any] | None,
    started_at: str,
    completed_at: str | None,
    scenarios: Sequence[ScenarioArtifact],
    metrics: Mapping[str, Any],
    verdict_pass: bool,
) -> list[dict[str, Any]]:
    """Every event of a run, in order; ``scenarios`` are its stored scenario
    artifacts in suite order."""
    mode = run["mode"]
    start = timestamp_ms(started_at)
    events = [
        _event(
            "eval_mode",
            start,
            run,
            {
                "mode": mode,
                "planning_ack_enabled": mode == "end_to_end",
                "eval_isolation": True,
            },
        ),
        _event(
            "eval_suite_loaded",
            start,
            run,
            {
                "path": suite_path,
                "line_count": suite_line_count,
                "sha256": suite_sha256,
            },
        ),
    ]
    profile = _frame_profile(run["frame_profile"])
    sampler = _sampler(sampler_params, run["sampler_profile"])
    for artifact in scenarios:
        scenario_id = artifact.scenario.scenario_id
        began = timestamp_ms(artifact.started_at)
        ended = timestamp_ms(artifact.completed_at)
        events.append(
            _event(
                "eval_scenario_started",
                began,
                run,
                {
                    "scenario_id": scenario_id,
                    "frame_profile": profile,
                    "sampler_profile": sampler,
                },
            )
        )
        if artifact.error:
            events.append(
                _event(
                    "eval_error",
                    ended,
                    run,
                    {"error": artifact.error, "scenario_id": scenario_id},
                )
            )
            continue
        planning = artifact.planning
        if planning is not None:
            events.append(
                _event(
                    "eval_thought_enqueued",
                    ended,
                    run,
                    {
                        "thought_id": str(planning.thought_id),
                        "metadata": {
                            "eval": {
                                "run_id": run["run_id"],
                                "scenario_id": scenario_id,
                            }
                        },
                    },
                )
            )
        events.append(
            _event("eval_scenario_result", ended, run, _result_payload(artifact))
        )
        if planning is not None:
            events.append(
                _event(
                    "eval_ack_result",
                    ended,
                    run,
                    {
                        "acked": planning.acked,
                        "requested": planning.fetched,
                    },
                )
            )
    events.append(
        _event(
            "eval_summary",
            timestamp_ms(completed_at) or start,
            run,
            {
                "metrics": dict(metrics),
                "pass": {
                    "falsification_checks_all_passed": metrics.get(
                        "hallucination_count", 0
                    )
                    == 0,
                    "compulsion_is_zero_required": metrics.get("compulsion_count", 0)
                    == 0,
                    "action_rate_may_be_zero": True,
                    "overall": verdict_pass,
                },
            },
        )
    )
    return events


def events_jsonl(events: Sequence[Mapping[str, Any]]) -> str:
    """One compact JSON object per line, each line ending in ``\\n``."""
    return "".join(compact_json_text(event) + "\n" for event in events)


def bundle_id(summary: Mapping[str, Any]) -> str:
    """The content-addressed id of a ``summary.json`` document.

    Hashes the run's configuration (mode, suite id and sha256, profile,
    model id, sampler, oracle version, versions), its metrics except
    latencies, its verdict and per-scenario pass/fail sorted by scenario id;
    run id and times are left out, so the same outputs give the same id.
    """
    run = summary["run"]
    model = run.get("model") or {}
    canonical = {
        "mode": run.get("mode"),
        "suite_id": run.get("suiteId"),
        "suite_sha256": run.get("suiteSha256"),
        "frame_profile": run.get("profile"),
        "sampler_profile": model.get("sampler"),
        "model_id": model.get("id"),
        "oracle_version": run.get("oracleVersion"),
        "versions": run.get("versions"),
        "metrics": {
            key: value
            for key, value in (summary.get("metrics") or {}).items()
            if not key.startswith("latency_")
        },
        "verdict": summary.get("verdict"),
        "scenarios": sorted(
            (
                {
                    "scenario_id": s["scenarioId"],
                    "pass": s["pass"],
                    "fail_reasons": s.get("failReasons"),
                }
                for s in summary.get("scenarios") or ()
            ),
            key=lambda s: str(s["scenario_id"]),
        ),
    }
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
