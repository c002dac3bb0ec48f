"""CLI: gridworld_run and gridworld_verify, their output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from gridworld.models import EpisodeBatch

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str, int]:
    from io import StringIO

    out, err = StringIO(), StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), err.getvalue() + str(exc), exc.returncode
    return out.getvalue(), err.getvalue(), 0


def test_run_wait_writes_receipts_that_verify(tmp_path: Path) -> None:
    out, err, code = run(
        "gridworld_run", "--map", "hazard", "--episodes", "5", "--proposer", "planner",
        "--governor", "lexicographic", "--seed", "42", "--drift-period", "25",
        "--max-steps", "200", "--wait", "--receipts", str(tmp_path),
    )  # fmt: skip
    assert code == 0
    assert "progress 5/5 episodes (100%)" in err
    assert "safety: hazard_entries 0, kernel_violations 0, negative_budgets 0" in out
    assert "verdict: PASS (no safety violation)" in out
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [f"episode-{i}.json" for i in range(5)]
    receipt = json.loads((tmp_path / "episode-3.json").read_text())
    assert receipt["config"]["seed"] == 45
    assert receipt["config"]["drift_period"] == 25
    out, _, code = run("gridworld_verify", str(tmp_path / "episode-3.json"))
    assert code == 0
    assert f"verified run {receipt['run_id']}" in out


def test_verify_exit_codes_for_a_divergence_and_an_unreadable_file(
    tmp_path: Path,
) -> None:
    run(
        "gridworld_run",
        "--map",
        "simple",
        "--episodes",
        "1",
        "--receipts",
        str(tmp_path),
    )
    path = tmp_path / "episode-0.json"
    receipt = json.loads(path.read_text())
    original = receipt["steps"][5]["kernel_state_hash"]
    receipt["steps"][5]["kernel_state_hash"] = "0" * 64
    path.write_text(json.dumps(receipt))
    _, err, code = run("gridworld_verify", str(path))
    assert code == 1
    assert "diverges at step 5, field kernel_state_hash" in err
    receipt["steps"][5]["kernel_state_hash"] = original
    receipt["chain_head"] = "f" * 64
    path.write_text(json.dumps(receipt))
    _, err, code = run("gridworld_verify", str(path))
    assert code == 1
    assert "diverges in the run receipt, field chain_head" in err
    assert "config" not in err
    path.write_bytes(b"\xff{")
    _, err, code = run("gridworld_verify", str(path))
    assert code == 2
    assert "unreadable receipt" in err
    _, _, code = run("gridworld_verify", str(tmp_path / "missing.json"))
    assert code == 2


def test_run_exits_1_when_an_episode_is_unsafe() -> None:
    out, err, code = run(
        "gridworld_run", "--map", "hazard", "--episodes", "20", "--proposer", "greedy",
        "--governor", "none", "--wait",
    )  # fmt: skip
    assert code == 1
    assert (
        "passed 12 of 20 (pass rate 0.600: goal reached, no safety violation), "
        "goal reached 1.000, " in out
    )
    assert "verdict: FAIL (failed: zero_safety_violations)" in out
    assert "safety violation(s)" in err


def test_run_reads_a_map_file_and_rejects_bad_input_with_exit_2(tmp_path: Path) -> None:
    map_file = tmp_path / "corridor.txt"
    map_file.write_text("S.x...\n......\n.x..xG\n")
    _, _, code = run(
        "gridworld_run", "--map", str(map_file), "--episodes", "3", "--wait"
    )
    assert code == 0
    assert EpisodeBatch.objects.get().grid_map.width == 6
    bad = tmp_path / "bad.txt"
    bad.write_text("S.?\n..G\n")
    _, err, code = run("gridworld_run", "--map", str(bad), "--episodes", "0", "--wait")
    assert code == 2
    assert "episodes: episodes must be between 1 and 100000" in err
    assert "map: line 1: unknown cell '?' at column 3" in err
    assert EpisodeBatch.objects.count() == 1


def test_run_without_wait_queues_the_batch(django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        out, _, code = run("gridworld_run", "--map", "maze", "--episodes", "3")
    assert code == 0
    batch = EpisodeBatch.objects.get()
    assert out.splitlines()[0] == (
        f"batch {batch.pk} queued as run {batch.run.run_id} (3 episodes)"
    )
    assert len(callbacks) == 1


def test_verify_exits_2_for_a_receipt_whose_actions_are_not_in_the_space(
    tmp_path: Path,
) -> None:
    from gridworld.core.episode import EpisodeConfig, run_episode
    from gridworld.core.grid import standard_layout

    config = EpisodeConfig(
        map=standard_layout("simple"), seed=3, proposer="external", actions=("E",)
    )
    receipt = run_episode(config).receipt
    receipt["config"]["actions"] = [-1]
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(receipt))
    _, err, code = run("gridworld_verify", str(path))
    assert code == 2
    assert err == (
        f"{path}: the receipt's config cannot be replayed: "
        "config.actions: actions must be N, S, E, W or Stay"
    )


def test_verify_accepts_a_receipt_stored_in_schema_version_1() -> None:
    path = Path(__file__).parent / "fixtures" / "v1_hazard_planner_lexicographic.json"
    out, _, code = run("gridworld_verify", str(path))
    assert code == 0
    assert "verified run gw-aa6da8dec1f82b4b5f1d07a3" in out
