"""events.jsonl lines and the content-addressed bundle id (EV-C4)."""

from __future__ import annotations

import copy
import json
from typing import Any

from evals.core.events import bundle_id, events_jsonl, timestamp_ms

SUMMARY: dict[str, Any] = {
    "run": {
        "runId": "20260203120000-abcdef",
        "suiteId": "idle-v1",
        "suiteSha256": "0" * 64,
        "profile": "balanced",
        "mode": "thought_only",
        "model": {"id": "scripted:x", "sampler": "standard"},
        "oracleVersion": "v1",
        "startedAt": "2026-02-03T12:00:00+00:00",
        "completedAt": "2026-02-03T12:00:05+00:00",
    },
    "metrics": {"action_rate": 0.25, "latency_p95_ms": 410.0},
    "verdict": {"pass": True, "failedProperties": []},
    "scenarios": [
        {"scenarioId": "b", "pass": True, "failReasons": []},
        {"scenarioId": "a", "pass": True, "failReasons": []},
    ],
}


def test_bundle_id_ignores_run_id_times_latency_and_scenario_order() -> None:
    other = copy.deepcopy(SUMMARY)
    other["run"]["runId"] = "20260204120000-123456"
    other["run"]["completedAt"] = "2026-02-04T12:00:09+00:00"
    other["metrics"]["latency_p95_ms"] = 999.0
    other["scenarios"].reverse()

    assert bundle_id(other) == bundle_id(SUMMARY)
    assert len(bundle_id(SUMMARY)) == 16


def test_bundle_id_changes_with_what_the_outputs_decided() -> None:
    worse = copy.deepcopy(SUMMARY)
    worse["scenarios"][0]["pass"] = False

    assert bundle_id(worse) != bundle_id(SUMMARY)


def test_events_are_one_compact_object_per_line() -> None:
    text = events_jsonl(
        [{"type": "eval_mode", "payload": {"mode": "é"}}, {"type": "x"}]
    )

    assert text == '{"type":"eval_mode","payload":{"mode":"é"}}\n{"type":"x"}\n'
    assert [json.loads(line)["type"] for line in text.splitlines()] == [
        "eval_mode",
        "x",
    ]


def test_timestamp_ms() -> None:
    assert timestamp_ms("1970-01-01T00:00:01.5+00:00") == 1500
    assert timestamp_ms(None) == 0
