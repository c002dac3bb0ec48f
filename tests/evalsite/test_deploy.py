"""docs/deploy.md and docker-compose.yml say what the code does: each queue
has exactly one worker service, beat runs once, the app reaches Postgres
through PgBouncer in transaction mode with prepared statements off, the
web's statement timeout is PgBouncer's, and the docs' commands name queues
and services that exist."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalsite.celery import QUEUE_NAMES, TASK_QUEUES

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def _argv(service: dict[str, Any]) -> list[str]:
    command = service.get("command", "")
    return command if isinstance(command, list) else shlex.split(command)


def _queues_of(argv: list[str]) -> list[str]:
    return argv[argv.index("-Q") + 1].split(",") if "-Q" in argv else []


def _workers(compose: dict[str, Any]) -> dict[str, list[str]]:
    return {
        name: _queues_of(_argv(service))
        for name, service in compose["services"].items()
        if _argv(service)[:4] == ["celery", "-A", "evalsite", "worker"]
    }


def _pgbouncer_ini(compose: dict[str, Any]) -> str:
    return str(compose["configs"]["pgbouncer_ini"]["content"])


def test_each_queue_is_consumed_by_exactly_one_worker_service(compose) -> None:
    consumed = [queue for queues in _workers(compose).values() for queue in queues]
    assert sorted(consumed) == sorted(QUEUE_NAMES)


def test_beat_runs_once(compose) -> None:
    beats = [
        name
        for name, service in compose["services"].items()
        if _argv(service)[:4] == ["celery", "-A", "evalsite", "beat"]
    ]
    assert beats == ["beat"]
    assert compose["services"]["beat"]["deploy"]["replicas"] == 1


def test_the_app_reaches_postgres_through_pgbouncer_without_prepared_statements(
    compose,
) -> None:
    services = compose["services"]
    for name in ("web", *_workers(compose), "beat"):
        env = services[name]["environment"]
        assert env["DB_PREPARED_STATEMENTS"] == "false", name
        assert "@pgbouncer:6432/" in env["DATABASE_URL"], name
    assert "@postgres:5432/" in services["migrate"]["environment"]["DATABASE_URL"]
    assert re.search(r"^pool_mode = transaction$", _pgbouncer_ini(compose), re.M)


def test_the_web_pool_starts_its_connections_with_the_web_statement_timeout(
    compose, settings
) -> None:
    alias = compose["services"]["web"]["environment"]["DATABASE_URL"].rsplit("/")[-1]
    line = next(
        line for line in _pgbouncer_ini(compose).splitlines() if line.startswith(alias)
    )
    assert f"SET statement_timeout = {settings.DB_STATEMENT_TIMEOUT_S * 1000}" in line
    workers_alias = compose["x-app"]["environment"]["DATABASE_URL"].rsplit("/")[-1]
    assert workers_alias != alias


def test_the_docs_worker_commands_name_queues_that_exist() -> None:
    commands = re.findall(r"^celery -A evalsite worker .*$", DOC, re.M)
    assert commands
    for command in commands:
        assert set(_queues_of(shlex.split(command))) <= set(QUEUE_NAMES), command


def test_the_docs_scale_commands_name_compose_services(compose) -> None:
    scaled = re.findall(r"--scale ([\w-]+)=\d+", DOC)
    assert scaled
    assert set(scaled) <= set(compose["services"])


def test_the_docs_queue_table_puts_each_task_in_its_queue() -> None:
    rows = re.findall(r"^\| `(\w+)` \| (.*)$", DOC, re.M)
    listed: dict[str, str] = {}
    for queue, rest in rows:
        for task in re.findall(r"`(\w+\.\w+)`", rest):
            if task in TASK_QUEUES:
                listed[task] = queue
    assert {q for q, _ in rows} == set(QUEUE_NAMES)
    for task, queue in listed.items():
        assert TASK_QUEUES[task] == queue or queue == "gridworld", task


def test_the_docs_link_the_retention_page() -> None:
    assert "docs/retention.md" in DOC
    assert (ROOT / "docs" / "retention.md").is_file()
