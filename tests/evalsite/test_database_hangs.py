"""A PostgreSQL server that stops answering (as with SIGSTOP: connections
stay open, nothing answers) costs a request a few seconds and a 503, never
a worker hung until gunicorn kills it. The server is the real test
database behind a relay that the test freezes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.db import OperationalError, connection

from evalsite.dbdeadline import statement_deadline
from tests.throwaway import freezable_proxy

pytestmark = [pytest.mark.postgres, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys, time
from django.db import close_old_connections
from django.test import Client
client = Client(HTTP_HOST="localhost")
assert client.get("/healthz").status_code in (200, 503)  # keeps its connection
print("ready", flush=True)
sys.stdin.readline()
answers = {}
for name, call in (
    ("healthz", lambda: client.get("/healthz")),
    ("api", lambda: client.get("/api/evals/runs", HTTP_AUTHORIZATION="Bearer es_0_x")),
    ("page", lambda: client.post("/accounts/login/", {"username": "a", "password": "b"})),
):
    began = time.monotonic()
    # What the server's handler does at the start of every request (the test
    # client leaves it out): a kept connection is health-checked again.
    close_old_connections()
    response = call()
    answers[name] = [response.status_code, round(time.monotonic() - began, 2),
                     response.content.decode()[:300]]
print(json.dumps(answers), flush=True)
"""


def proxied_url(port: int) -> str:
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return f"postgres://{s['USER']}{password}@127.0.0.1:{port}/{s['NAME']}"


def test_a_frozen_database_answers_503_within_seconds_everywhere(
    transactional_db: Any,
) -> None:
    port = int(connection.settings_dict.get("PORT") or 5432)
    with freezable_proxy(port) as proxy:
        probe = subprocess.Popen(
            [sys.executable, "manage.py", "shell", "-c", PROBE],
            cwd=ROOT,
            env={
                **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
                "DJANGO_DEBUG": "true",
                "DATABASE_URL": proxied_url(proxy.port),
                "DB_CONNECT_TIMEOUT_S": "2",
                "LOG_LEVEL": "ERROR",
            },
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert probe.stdout is not None and probe.stdin is not None
            # Lines before (the shell's own notes) are not the probe's.
            while (line := probe.stdout.readline()) and line.strip() != "ready":
                pass
            assert line.strip() == "ready", probe.stderr.read() if probe.stderr else ""
            proxy.freeze()
            probe.stdin.write("go\n")
            probe.stdin.flush()
            out, err = probe.communicate(timeout=60)
        finally:
            probe.kill()
    wait_for_other_sessions_to_end()
    answers = json.loads(out.strip().splitlines()[-1])

    # The kept connection's check is cut after 2 s, the reconnect gives up
    # after 2 s; later requests only pay the reconnect.
    assert answers["healthz"][0] == 503
    assert json.loads(answers["healthz"][2])["databaseOk"] is False
    assert answers["api"][0] == 503
    assert json.loads(answers["api"][2])["error"]["code"] == "unavailable"
    assert answers["page"][0] == 503
    assert all(seconds < 6 for _, seconds, _ in answers.values()), answers
    assert "[Ops] database_not_answering what=health_check" in err


def wait_for_other_sessions_to_end(timeout: float = 10.0) -> None:
    """The relay's sessions end when it closes; the test database can only
    be dropped once they have."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.1)


def test_a_statement_the_server_does_not_answer_is_cut_off(
    transactional_db: Any,
) -> None:
    """The server takes 3 s (as a stopped one would take forever); the
    deadline cuts the connection after 1 s and the driver raises."""
    began = time.monotonic()
    with (
        pytest.raises(OperationalError),
        connection.execute_wrapper(statement_deadline(1)),
        connection.cursor() as cursor,
    ):
        cursor.execute("SELECT pg_sleep(3)")
    elapsed = time.monotonic() - began
    connection.close()
    wait_for_other_sessions_to_end()

    assert 1 <= elapsed < 3, elapsed


def test_the_connection_carries_the_configured_connect_timeout() -> None:
    from evalsite.database import url_database

    entry = url_database(
        "postgres://u@h/db",
        conn_max_age=0,
        prepared_statements=False,
        connect_timeout_s=4,
    )

    assert entry["OPTIONS"] == {"connect_timeout": 4}


def test_a_web_request_s_connection_has_the_statement_timeout(
    transactional_db: Any, client: Any, settings: Any
) -> None:
    settings.DB_STATEMENT_TIMEOUT_S = 7
    client.get("/healthz")  # the middleware is loaded
    connection.close()
    client.get("/healthz")  # a new connection of a web request

    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "7s"
