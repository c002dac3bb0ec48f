"""Stores written for the reference eval store (openclaw-engram) gate here as
they gate there: numeric text, non-number metrics and unknown fields in run
summaries and snapshots, a padded benchmarkId, the latest run on a tie, and
an invalid base snapshot."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import SchemaInvalid
from evals.core import runs, store_compat
from evals.core.format_rules import js_trim, parse_json_document
from evals.core.formats_types import RunStatus
from evals.core.gate import BaselineSource, evaluate_gate
from evals.core.runs import validate_run_summary
from evals.core.store_compat import (
    RUN_KEYS,
    SNAPSHOT_ENTRY_KEYS,
    SNAPSHOT_KEYS,
    decimal_text_number,
    run_as_reference_reads,
    snapshot_as_reference_reads,
)
from evals.core.store_reader import load_store
from tests.json_strategies import Change, changed, changes, json_values

REPO = Path(__file__).resolve().parents[3]
SCHEMAS = REPO / "evals" / "core" / "schemas"


def run_doc(
    run_id: str, benchmark_id: str, passed: Any, total: Any, **extra: Any
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "schemaVersion": 1,
        "runId": run_id,
        "benchmarkId": benchmark_id,
        "status": "completed",
        "startedAt": "2026-03-07T08:00:00.000Z",
        "completedAt": "2026-03-07T08:05:00.000Z",
        "totalCases": total,
        "passedCases": passed,
        "failedCases": 0 if isinstance(total, str) else total - passed,
    }
    document.update(extra)
    return document


def write(root: Path, relative: str, document: Any) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")


def latest(root: Path) -> dict[str, str]:
    contents = load_store(root, latest_runs_only=True)
    assert contents.invalid_counts.total == 0, contents.invalid_runs
    return {s.item.benchmark_id: s.item.run_id for s in contents.runs}


# --- run summaries -----------------------------------------------------------


def test_numeric_text_counts_are_numbers(tmp_path: Path) -> None:
    write(
        tmp_path,
        "runs/r.json",
        run_doc("r", "ama", " 9 ", "10", failedCases="1e0"),
    )

    (stored,) = load_store(tmp_path).runs

    assert (stored.item.total_cases, stored.item.passed_cases) == (10, 9)
    assert stored.item.failed_cases == 1
    assert stored.item.to_wire()["totalCases"] == 10


def test_string_metrics_and_unknown_fields_are_ignored(tmp_path: Path) -> None:
    document = run_doc(
        "r",
        "ama",
        3,
        4,
        metrics={"actionOutcomeScore": "0.9", "trustViolationRate": 0.1, "x": None},
        owner="ci",
        nested={"anything": [1, 2]},
    )
    write(tmp_path, "runs/r.json", document)

    (stored,) = load_store(tmp_path).runs

    assert stored.item.metrics == {"trustViolationRate": 0.1}
    assert "owner" not in stored.item.to_wire()


def test_metrics_that_are_no_object_are_ignored(tmp_path: Path) -> None:
    write(tmp_path, "runs/r.json", run_doc("r", "ama", 3, 4, metrics="n/a"))

    (stored,) = load_store(tmp_path).runs

    assert stored.item.metrics is None


def test_benchmark_id_is_trimmed_in_runs(tmp_path: Path) -> None:
    base, candidate = tmp_path / "b", tmp_path / "c"
    write(base, "runs/b.json", run_doc("b", "ama-memory", 3, 4))
    write(candidate, "runs/c.json", run_doc("c", "  ama-memory\t", 4, 4))

    verdict = evaluate_gate(
        base=load_store(base, latest_runs_only=True),
        candidate=load_store(candidate, latest_runs_only=True),
    )

    assert verdict.passed
    assert verdict.missing_candidate_benchmarks == ()
    assert [d.benchmark_id for d in verdict.deltas] == ["ama-memory"]


def test_blank_or_non_text_optional_fields_are_dropped(tmp_path: Path) -> None:
    write(
        tmp_path,
        "runs/r.json",
        run_doc("r", "ama", 3, 4, completedAt="  ", notes=7, gitRef=None),
    )

    (stored,) = load_store(tmp_path).runs

    assert stored.item.completed_at is None
    assert (stored.item.notes, stored.item.git_ref) == (None, None)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("totalCases", ""),
        ("totalCases", "0x10"),
        ("totalCases", "Infinity"),
        ("totalCases", True),
        ("totalCases", "10.5"),
        ("startedAt", "yesterday"),
    ],
)
def test_what_we_still_refuse(tmp_path: Path, field: str, value: Any) -> None:
    # Deliberate differences (docs/benchmarks.md): empty text is no count,
    # only decimal text is a number, a case is whole, an instant is RFC 3339.
    write(tmp_path, "runs/r.json", run_doc("r", "ama", 0, 10, **{field: value}))

    (invalid,) = load_store(tmp_path).invalid_runs

    assert [p.path for p in invalid.problems] == [f"$.{field}"]


# --- the latest run on a tie ------------------------------------------------


def test_same_completed_at_goes_to_the_first_path(tmp_path: Path) -> None:
    # The reference sorts runs by instant, keeping path order on a tie.
    write(tmp_path, "runs/2026-03-07/a.json", run_doc("r1", "ama", 1, 4))
    write(tmp_path, "runs/2026-03-07/b.json", run_doc("r2", "ama", 4, 4))

    assert latest(tmp_path) == {"ama": "r1"}


def test_instants_are_compared_to_the_millisecond(tmp_path: Path) -> None:
    write(tmp_path, "runs/a.json", run_doc("r1", "ama", 1, 4))
    later = run_doc("r2", "ama", 4, 4, completedAt="2026-03-07T08:05:00.000900Z")
    write(tmp_path, "runs/b.json", later)
    write(tmp_path, "runs/c.json", run_doc("r0", "obj", 1, 4))
    newer = run_doc("r9", "obj", 1, 4, completedAt="2026-03-07T08:05:00.001Z")
    write(tmp_path, "runs/d.json", newer)

    assert latest(tmp_path) == {"ama": "r1", "obj": "r9"}


@pytest.mark.parametrize("chunk", [1, 2, 1000])
def test_tie_rule_holds_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    from evals.core import store_reader

    for name, run_id in (("a", "m"), ("b", "z"), ("c", "a")):
        write(tmp_path, f"runs/{name}.json", run_doc(run_id, "ama", 1, 4))
    monkeypatch.setattr(store_reader, "_CHUNK", chunk)

    assert latest(tmp_path) == {"ama": "m"}
    everything = load_store(tmp_path)
    assert [s.item.run_id for s in everything.runs] == ["m", "z", "a"]


# --- baseline snapshots -------------------------------------------------------


def snapshot_doc(**extra: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "schemaVersion": 1,
        "snapshotId": "required-main",
        "createdAt": "2026-03-08T13:20:00.000Z",
        "sourceRootDir": "/srv/main",
        "benchmarkCount": "1",
        "benchmarks": [
            {
                "benchmarkId": " ama ",
                "runId": "main-1",
                "passRate": "0.75",
                "metrics": {"actionOutcomeScore": 0.8, "trustViolationRate": "low"},
                "reviewer": "ci",
            }
        ],
        "generator": "openclaw engram",
    }
    document.update(extra)
    return document


def test_snapshot_numeric_text_metrics_and_extra_fields(tmp_path: Path) -> None:
    base, candidate = tmp_path / "b", tmp_path / "c"
    write(base, "baselines/required-main.json", snapshot_doc())
    write(
        candidate,
        "runs/c.json",
        run_doc("c", "ama", 3, 4, metrics={"actionOutcomeScore": 0.9}),
    )

    verdict = evaluate_gate(
        base=load_store(base),
        candidate=load_store(candidate, latest_runs_only=True),
        snapshot_id="required-main",
    )

    assert verdict.baseline_resolved_from is BaselineSource.BASE
    assert verdict.passed, verdict.regressions
    assert verdict.improvements == ("ama actionOutcomeScore 0.8 -> 0.9",)


# --- the CLI ------------------------------------------------------------------


def gate(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    return subprocess.run(
        [sys.executable, "-m", "evals.gate", *map(str, args)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_cli_passes_a_reference_store_with_lenient_fields(tmp_path: Path) -> None:
    base, candidate = tmp_path / "base", tmp_path / "candidate"
    write(
        base,
        "runs/2026-03-07/ama-latest.json",
        run_doc("b", "ama", "7", "10", failedCases="3", metrics={"x": "0.7"}),
    )
    write(
        candidate,
        "runs/2026-03-07/ama-latest.json",
        run_doc("c", " ama ", "9", "10", failedCases="1", extra={"k": 1}),
    )

    result = gate("--base", base, "--candidate", candidate)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "ama pass rate improved (0.7 -> 0.9)" in result.stdout


def test_cli_invalid_base_snapshot_falls_back_to_the_candidates(
    tmp_path: Path,
) -> None:
    base, candidate = tmp_path / "base", tmp_path / "candidate"
    write(base, "baselines/required-main.json", {"schemaVersion": 1})
    write(candidate, "baselines/required-main.json", snapshot_doc())
    write(candidate, "runs/c.json", run_doc("c", "ama", 3, 4))

    result = gate(
        "--base", base, "--candidate", candidate, "--snapshot-id", "required-main"
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stderr
    assert "- Baseline snapshot: required-main (resolved from candidate)" in (
        result.stdout.splitlines()
    )


# --- the compatibility step itself --------------------------------------------


@pytest.mark.parametrize(
    ("value", "number"),
    [
        ("10", 10),
        (" 10\n", 10),
        ("1e1", 10),
        ("+3", 3),
        ("10.0", 10),
        (".5", 0.5),
        ("0.75", 0.75),
        ("-2", -2),
    ],
)
def test_decimal_text_is_a_number(value: str, number: float) -> None:
    found = decimal_text_number(value)
    assert found == number
    assert type(found) is type(number)


@pytest.mark.parametrize(
    "value", ["", "  ", "0x10", "0b1", "Infinity", "1e400", "1_000", "ten", True, None]
)
def test_other_values_are_left_as_they_are(value: Any) -> None:
    assert decimal_text_number(value) is value


def test_js_trim_is_javascripts_trim() -> None:
    assert js_trim("\ufeff\u00a0 ama\u2028\t") == "ama"
    assert js_trim("\x1cama") == "\x1cama"  # not whitespace in JavaScript


def test_known_fields_are_the_schemas() -> None:
    run_schema = json.loads((SCHEMAS / "run_summary.v1.schema.json").read_text())
    snap_schema = json.loads((SCHEMAS / "baseline_snapshot.v1.schema.json").read_text())
    entry = snap_schema["properties"]["benchmarks"]["items"]["properties"]

    assert set(run_schema["properties"]) == RUN_KEYS == runs.RUN_KEYS
    assert set(snap_schema["properties"]) == SNAPSHOT_KEYS
    assert set(entry) == SNAPSHOT_ENTRY_KEYS


SEED_RUN = run_doc(
    "run-001",
    "ama-memory",
    9,
    12,
    metrics={"actionOutcomeScore": 0.81},
    notes="n",
    gitRef="main",
)


def test_canonical_documents_are_left_unchanged() -> None:
    assert run_as_reference_reads(copy.deepcopy(SEED_RUN)) == SEED_RUN
    snapshot = snapshot_doc()
    del snapshot["generator"]
    snapshot["benchmarkCount"] = 1
    snapshot["benchmarks"] = [
        {"benchmarkId": "ama", "runId": "m", "passRate": 0.75, "totalCases": 4}
    ]
    assert snapshot_as_reference_reads(copy.deepcopy(snapshot)) == snapshot


# The typed fast path of the store reader skips the compatibility step: it
# may vouch only for files the full reader (that step, then validation) reads
# the same way.

_values = json_values(
    max_int=20,
    words=["", " ", "x", "completed", " completed", "2026-03-06T10:00:00Z", "12"],
) | st.sampled_from(
    [" ama-memory ", "ama-memory\u00a0", "0.5", " 2026-03-06T10:00:00Z"]
)
_keys = sorted(runs.RUN_KEYS | {"extra"})


def _full_read_key(data: bytes) -> tuple[Any, ...] | None:
    try:
        document = run_as_reference_reads(parse_json_document(data, what="r.json"))
        summary = validate_run_summary(document)
    except SchemaInvalid:
        return None
    completed = summary.status is RunStatus.COMPLETED
    return (summary.benchmark_id, completed, summary.recency, summary.run_id)


@settings(max_examples=500)
@given(change=changes(_keys, _values), indent=st.sampled_from([None, 2]))
def test_fast_path_agrees_with_the_reference_read(
    change: Change, indent: int | None
) -> None:
    document = changed(SEED_RUN, change)
    data = json.dumps(document, indent=indent).encode()

    key = runs.stored_run_key(data)

    if key is not None:
        assert tuple(key) == _full_read_key(data)
    if runs.fast_valid(document):
        assert run_as_reference_reads(document) == document
    if store_compat._run_is_as_read(document):
        # The shortcut that returns a document as it is must be right.
        assert store_compat.read_run(document) == document
