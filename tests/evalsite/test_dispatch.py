"""Services send Celery work by task name (``evalsite.dispatch``): every name
they use is a registered task, a task lives in the app its name starts
with, a send runs eagerly in tests as a direct ``task.delay`` did, and no
process imports a task module before it sends."""

from __future__ import annotations

import ast
from importlib import import_module
from pathlib import Path

import pytest

from evalsite.celery import app
from evalsite.dispatch import enqueue, task_get
from evalsite.models import WorkerHeartbeat
from evalsite.services import selfcheck_expected_total, selfcheck_start
from tests.manage_cli import run_manage

ROOT = Path(__file__).resolve().parents[2]
APPS = ("evalsite", "stream", "evals", "gridworld", "prkeepalive")
SENDERS = {"enqueue", "signature"}


def _names_sent_by_the_code() -> dict[str, list[str]]:
    """Task names passed as first argument to ``enqueue``/``signature``,
    with where each is sent from."""
    sent: dict[str, list[str]] = {}
    for package in APPS:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts or path.name == "dispatch.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else None
                if isinstance(func, ast.Name):
                    called = func.id
                first = node.args[0]
                if called in SENDERS and isinstance(first, ast.Constant):
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    sent.setdefault(str(first.value), []).append(where)
    return sent


def test_every_task_name_a_service_sends_is_a_registered_task() -> None:
    sent = _names_sent_by_the_code()
    assert {
        "evals.run_chunk",
        "evals.finalize_run",
        "stream.keepalive_tick",
        "prkeepalive.start_round",
        "prkeepalive.process_delivery",
        "evalsite.selfcheck_part",
        "evalsite.selfcheck_done",
    } <= set(sent)
    unknown = {}
    for name, where in sent.items():
        try:
            task_get(name)
        except LookupError:
            unknown[name] = where
    assert unknown == {}


def test_every_project_task_is_defined_in_the_tasks_of_the_app_its_name_names() -> None:
    for package in APPS:
        try:
            import_module(f"{package}.tasks")
        except ModuleNotFoundError:  # an app without tasks (gridworld)
            continue
    misplaced = {
        name: task.__module__
        for name, task in app.tasks.items()
        if name.partition(".")[0] in APPS
        and not task.__module__.startswith(f"{name.partition('.')[0]}.tasks")
    }
    project = [name for name in app.tasks if name.partition(".")[0] in APPS]
    assert len(project) >= 10
    assert misplaced == {}


def test_an_unknown_task_name_is_a_lookup_error_that_names_it() -> None:
    with pytest.raises(LookupError, match="'evals.no_such_task'"):
        task_get("evals.no_such_task")
    with pytest.raises(LookupError, match="'gridworld.run_episode'"):
        task_get("gridworld.run_episode")  # an app without tasks
    with pytest.raises(LookupError, match="'no_such_app.go'"):
        task_get("no_such_app.go")


def test_a_task_looked_up_by_name_is_the_task_its_module_defines() -> None:
    from evals.tasks.runs import finalize_run

    found = task_get("evals.finalize_run")
    assert found.name == finalize_run.name == "evals.finalize_run"
    assert found.run.__module__ == "evals.tasks.runs"


@pytest.mark.django_db
def test_a_send_in_eager_mode_runs_the_task_in_the_caller() -> None:
    enqueue("evalsite.record_heartbeat", "dispatch-test")
    enqueue("evalsite.record_heartbeat", "dispatch-test")
    assert WorkerHeartbeat.objects.get(source="dispatch-test").beats == 2


@pytest.mark.django_db
def test_a_chord_sent_by_name_in_eager_mode_joins_with_its_members_results() -> None:
    selfcheck_start(token="dispatch")
    row = WorkerHeartbeat.objects.get(source="selfcheck:dispatch")
    assert row.beats == selfcheck_expected_total() == 10


def test_a_process_loads_an_apps_tasks_only_when_it_first_sends_one() -> None:
    code = (
        "import sys; from evalsite.dispatch import task_get; "
        "import evals.services.runs.lifecycle, stream.services.keepalive, "
        "prkeepalive.services.dispatch, evalsite.services; "
        "apps = ('evalsite', 'stream', 'evals', 'prkeepalive'); "
        "before = sorted(m for m in sys.modules if m.split('.')[:2] in "
        "[[a, 'tasks'] for a in apps]); "
        "task_get('evals.finalize_run'); "
        "print(before, 'evals.tasks.runs' in sys.modules)"
    )
    result = run_manage("shell", "-c", code, drop_prefixes=())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[] True"
