"""end_to_end mode: the run's own stream, planning consuming it, ack stats.

Seed 000 EV-C6 (mode line, ack statistics) and PA-D3 (a goal-less thought
never becomes a task). The real worker path is in
tests/integration/test_eval_end_to_end.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.errors import CoreError
from evals.models import Benchmark, Run
from evals.services.harness.create import eval_agent_name, eval_run_create
from evals.services.runs.lifecycle import run_chunk_execute, run_execute

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[4] / "evals" / "suites"
SMOKE_IDS = [
    "smoke:stable-plains",
    "smoke:sheltered-night",
    "smoke:hunger-raw-mutton",
    "smoke:fox-at-dawn",
    "smoke:zombie-close",
]
GOAL_IDS = {"smoke:hunger-raw-mutton", "smoke:zombie-close"}
NO_GOAL_IDS = {"smoke:stable-plains", "smoke:sheltered-night", "smoke:fox-at-dawn"}


def run_end_to_end(user: Any, suite: str = "smoke.jsonl", **options: Any) -> Run:
    run = eval_run_create(
        suite_path=SHIPPED / suite,
        profile="balanced",
        mode="end_to_end",
        model="scripted",
        user=user,
        schedule=False,
        **options,
    )
    return run_execute(run=run)


def test_ev_c6_end_to_end_logs_its_mode_and_records_ack_statistics(
    owner: Any, log_lines: Any
) -> None:
    run = run_end_to_end(owner)

    assert log_lines("[Eval] mode=") == ["[Eval] mode=end_to_end planning_ack=true"]
    assert (
        log_lines("[Thought-to-task] ack batch")
        == [
            "[Thought-to-task] ack batch size=1 fetched=1 converted=1 skipped=0 errors=0"
        ]
        * 2
    )
    planning = {c.case_id: c.details["planning"] for c in run.case_results.all()}
    for case_id in GOAL_IDS:
        stats = planning[case_id]
        assert (stats["fetched"], stats["converted"], stats["acked"]) == (1, 1, 1)
        assert (stats["skipped"], stats["errors"]) == (0, 0)
        assert len(stats["taskIds"]) == 1
        assert stats["convertEligible"] is True
    for case_id in NO_GOAL_IDS:
        stats = planning[case_id]
        assert (stats["fetched"], stats["converted"], stats["acked"]) == (0, 0, 0)
        assert stats["taskIds"] == []
        assert stats["convertEligible"] is False
    assert run.metrics["tasks_created"] == 2
    assert (run.status, run.verdict_passed) == (Run.Status.COMPLETED, True)


def test_pa_d3_goal_less_scenarios_create_no_tasks(owner: Any) -> None:
    from stream.models import Task

    run = run_end_to_end(owner)

    tasks_created = {
        c.case_id: c.details["tasksCreated"] for c in run.case_results.all()
    }
    assert tasks_created == {
        "smoke:stable-plains": 0,
        "smoke:sheltered-night": 0,
        "smoke:hunger-raw-mutton": 1,
        "smoke:fox-at-dawn": 0,
        "smoke:zombie-close": 1,
    }
    tasks = Task.objects.filter(agent__name=run.config["agent"])
    assert sorted(tasks.values_list("action", "target")) == [
        ("build", "cobblestone"),
        ("smelt", "raw_mutton"),
    ]
    assert all(t.thought.eval_run_id == run.run_id for t in tasks)


def test_end_to_end_stream_is_an_isolated_inactive_agent(owner: Any) -> None:
    from stream.models import Agent, Thought

    run = run_end_to_end(owner)

    agent = Agent.objects.get(name=eval_agent_name(run.run_id))
    assert run.config["agent"] == f"eval-{run.run_id}"
    assert (agent.owner, agent.is_active) == (owner, False)
    thoughts = Thought.objects.filter(agent=agent)
    assert thoughts.count() == 5
    assert set(thoughts.values_list("eval_run_id", "source", "type")) == {
        (run.run_id, "eval", "eval")
    }
    acked = thoughts.filter(processed=True)
    assert set(acked.values_list("processed_by", flat=True)) == {f"eval:{run.run_id}"}
    assert acked.count() == 2
    assert Thought.objects.exclude(agent=agent).count() == 0


def test_end_to_end_compulsion_becomes_a_task_and_fails_the_run(
    owner: Any, log_lines: Any
) -> None:
    run = run_end_to_end(
        owner,
        suite="idle-v1.jsonl",
        script_path=SHIPPED / "idle-v1-regressed.script.jsonl",
    )

    meadow = run.case_results.get(case_id="idle-v1:stable-meadow-day").details
    assert meadow["tasksCreated"] == 1
    assert meadow["failReasons"] == ["compulsion"]
    assert log_lines("[Eval] FAIL") == [
        "[Eval] FAIL properties_satisfied=false failed=no_compulsion"
    ]


def test_end_to_end_without_a_user_uses_the_first_superuser(staff: Any) -> None:
    run = run_end_to_end(None)

    from stream.models import Agent

    assert Agent.objects.get(name=run.config["agent"]).owner == staff


def test_end_to_end_with_no_possible_owner_stores_nothing() -> None:
    with pytest.raises(CoreError) as caught:
        eval_run_create(
            suite_path=SHIPPED / "smoke.jsonl",
            profile="balanced",
            mode="end_to_end",
            model="scripted",
        )

    assert "needs a user to own the run's stream" in caught.value.message
    assert (Benchmark.objects.count(), Run.objects.count()) == (0, 0)


def test_end_to_end_artifacts_carry_the_planning_section(owner: Any) -> None:
    run = run_end_to_end(owner)
    path = Path(run.artifacts_dir) / "scenarios" / "smoke:zombie-close.json"

    artifact = json.loads(path.read_text())

    assert artifact["mode"] == "end_to_end"
    assert artifact["tasksCreated"] == 1
    assert artifact["planning"]["agent"] == run.config["agent"]
    summary = json.loads((Path(run.artifacts_dir) / "summary.json").read_text())
    assert summary["metrics"]["tasks_created"] == 2
    events = [
        json.loads(line)
        for line in (Path(run.artifacts_dir) / "events.jsonl").read_text().splitlines()
    ]
    assert events[0]["payload"]["planning_ack_enabled"] is True
    enqueued = [e for e in events if e["type"] == "eval_thought_enqueued"]
    acks = [e for e in events if e["type"] == "eval_ack_result"]
    assert len(enqueued) == len(acks) == 5
    assert enqueued[-1]["payload"]["metadata"]["eval"] == {
        "run_id": run.run_id,
        "scenario_id": "smoke:zombie-close",
    }
    assert all(a["payload"]["acked"] == a["payload"]["requested"] for a in acks)


def queued_end_to_end(owner: Any) -> Run:
    return eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="balanced",
        mode="end_to_end",
        model="scripted",
        user=owner,
        schedule=False,
    )


def test_a_chunk_delivered_twice_publishes_each_scenario_once(owner: Any) -> None:
    from stream.models import Task, Thought

    run = queued_end_to_end(owner)

    run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS)
    run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS)

    agent = run.config["agent"]
    assert Thought.objects.filter(agent__name=agent).count() == 5
    assert Task.objects.filter(agent__name=agent).count() == 2


def test_a_chunk_failing_mid_scenario_rolls_back_what_it_published(
    owner: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evals.services.harness import execute
    from stream.models import Task, Thought

    run = queued_end_to_end(owner)
    real_write = execute.write_artifact
    calls: list[str] = []

    def disk_full_on_the_third(*args: Any) -> None:
        calls.append(args[1].scenario_id)
        if len(calls) == 3:
            raise OSError("disk full")
        real_write(*args)

    monkeypatch.setattr(execute, "write_artifact", disk_full_on_the_third)
    with pytest.raises(OSError, match="disk full"):
        run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS)

    agent = run.config["agent"]
    # smoke:hunger-raw-mutton failed after publish + poll: its thought and
    # task were rolled back with its CaseResult.
    assert Thought.objects.filter(agent__name=agent).count() == 2
    assert Task.objects.filter(agent__name=agent).count() == 0

    run_chunk_execute(run_pk=run.pk, case_ids=SMOKE_IDS)

    assert Thought.objects.filter(agent__name=agent).count() == 5
    assert Task.objects.filter(agent__name=agent).count() == 2
    assert run.case_results.count() == 5


def _same_goal_suite(tmp_path: Path, order: list[str]) -> Path:
    """Three scenarios with the same grounded goal (the zombie frame), and a
    calm one, written in ``order``; their scripted outputs identical."""
    lines = {
        json.loads(line)["scenario_id"]: json.loads(line)
        for line in (SHIPPED / "smoke.jsonl").read_text("utf-8").splitlines()
        if line.strip()
    }
    scripts = {
        json.loads(line)["scenario_id"]: json.loads(line)
        for line in (SHIPPED / "smoke.script.jsonl").read_text("utf-8").splitlines()
        if line.strip()
    }
    suite_lines, script_lines = [], []
    for name in order:
        source = "smoke:stable-plains" if name == "calm" else "smoke:zombie-close"
        scenario = dict(lines[source], scenario_id=f"iso:{name}")
        suite_lines.append(json.dumps(scenario))
        script_lines.append(
            json.dumps(dict(scripts[source], scenario_id=f"iso:{name}"))
        )
    folder = tmp_path / "-".join(order)
    folder.mkdir()
    suite = folder / "iso.jsonl"
    suite.write_text("\n".join(suite_lines) + "\n", encoding="utf-8")
    (folder / "iso.script.jsonl").write_text(
        "\n".join(script_lines) + "\n", encoding="utf-8"
    )
    return suite


def _outcomes(run: Run) -> dict[str, tuple[Any, ...]]:
    return {
        c.case_id: (
            c.passed,
            c.details["planning"]["convertEligible"],
            c.details["planning"]["eligibilityReason"],
            c.details["planning"]["converted"],
            c.details["tasksCreated"],
        )
        for c in run.case_results.all()
    }


def test_end_to_end_scenarios_are_isolated_shuffled_order_same_results(
    owner: Any, tmp_path: Path
) -> None:
    """Content dedup and goalKey idempotency are per scenario: three
    identical grounded goals give three tasks, in any order."""
    import random

    names = ["a", "b", "c", "calm"]
    shuffled = list(names)
    random.Random(7).shuffle(shuffled)
    assert shuffled != names
    results = []
    for order in (names, shuffled, list(reversed(names))):
        run = eval_run_create(
            suite_path=_same_goal_suite(tmp_path, order),
            profile="balanced",
            mode="end_to_end",
            model="scripted",
            user=owner,
            schedule=False,
        )
        run = run_execute(run=run)
        results.append((_outcomes(run), run.metrics["tasks_created"]))
    assert results[0] == results[1] == results[2]
    outcomes, tasks_created = results[0]
    for name in ("a", "b", "c"):
        assert outcomes[f"iso:{name}"][1:] == (True, "eligible", 1, 1)
    assert outcomes["iso:calm"][1:] == (False, "no_goal", 0, 0)
    assert tasks_created == 3
