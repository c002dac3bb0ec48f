"""Settings come from the environment, strictly."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.manage_cli import run_manage

PRODUCTION_SECRET_KEY = "prod-" + "a1B2c3D4e5F6g7H8" * 4


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_manage(
        *args, drop_prefixes=("DJANGO_", "DATABASE_URL", "CELERY_", "LOG_"), **env
    )


def test_debug_off_without_secret_key_fails_clearly() -> None:
    result = manage("check", DJANGO_DEBUG="false")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY (or DJANGO_SECRET_KEY_FILE) must be set" in result.stderr


def test_malformed_boolean_is_refused() -> None:
    result = manage("check", DJANGO_DEBUG="yes-please")
    assert result.returncode != 0
    assert "DJANGO_DEBUG must be one of true/false/1/0" in result.stderr


def test_secret_key_file_is_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s" * 60 + "\n")
    result = manage(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.SECRET_KEY)",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY_FILE=str(secret),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("s" * 60)


# Slow by design: manage.py check --deploy runs in a child process.
@pytest.mark.parametrize(("debug", "expected_error_id"), [("false", None)])
def test_check_deploy_is_clean_under_production_env(
    debug: str, expected_error_id: str | None
) -> None:
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_DEBUG=debug,
        DJANGO_SECRET_KEY=PRODUCTION_SECRET_KEY,
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
    )
    # Clean: not a single warning (HSTS preload is on by default).
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


# Slow by design: a new shell and manage.py check --deploy in child processes.
def test_secrets_come_from_files_and_are_never_printed(tmp_path: Path) -> None:
    """Every secret can come from NAME_FILE; a start-up, a deploy check, a
    failing database and a worker-less health check print none of them."""
    secrets = {
        "DJANGO_SECRET_KEY": "sk-" + "Zq9-Vw2_Lp" * 6,
        "DATABASE_URL": "postgres://evalsite:pw-db-Q7x2@127.0.0.1:9/evalsite",
        "CELERY_BROKER_URL": "redis://:pw-redis-K4m8@127.0.0.1:9/0",
        "OPENAI_API_KEY": "sk-openai-R5t1",
        "PRKEEPALIVE_WEBHOOK_SECRET": "whsec-M3n6",
    }
    env = {"DJANGO_DEBUG": "false", "LOG_LEVEL": "DEBUG"}
    for name, value in secrets.items():
        path = tmp_path / name.lower()
        path.write_text(value + "\n")
        env[f"{name}_FILE"] = str(path)
    probe = (
        "from django.conf import settings; from django.test import Client; "
        "assert settings.DATABASES['default']['PASSWORD'] == 'pw-db-Q7x2'; "
        "assert settings.OPENAI_API_KEY == 'sk-openai-R5t1'; "
        "print(Client(HTTP_HOST='localhost').get('/healthz', secure=True).status_code)"
    )
    shell = manage("shell", "-c", probe, **env)
    check = manage("check", "--deploy", **env)

    assert shell.returncode == 0, shell.stderr
    assert shell.stdout.strip().splitlines()[-1] == "503"
    output = shell.stdout + shell.stderr + check.stdout + check.stderr
    leaked = [name for name, value in secrets.items() if value in output]
    leaked += [w for w in ("pw-db-Q7x2", "pw-redis-K4m8") if w in output]
    assert leaked == []


# Slow by design: manage.py check --deploy runs in a child process.
def test_check_deploy_warns_about_embedded_broker() -> None:
    result = manage(
        "check", "--deploy", DJANGO_DEBUG="false", DJANGO_SECRET_KEY="x7Gq" * 16
    )
    assert "evalsite.W001" in result.stderr


def _wsgi_get(path: str) -> int:
    """One request through the WSGI handler, as gunicorn or runserver make
    it: unlike the test client, it sends request_started/finished, whose
    handler closes connections past CONN_MAX_AGE."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory

    statuses: list[str] = []
    environ = RequestFactory().get(path).environ
    b"".join(WSGIHandler()(environ, lambda status, headers: statuses.append(status)))
    return int(statuses[0].split()[0])


@pytest.mark.django_db(transaction=True)
def test_requests_keep_the_database_connection_open_for_the_next() -> None:
    # Opening an SQLite connection (pragmas, the WAL index) cost more than a
    # whole POST /thoughts; Postgres pays a connection handshake.
    from django.db import connection

    assert connection.settings_dict["CONN_MAX_AGE"] == 60
    assert _wsgi_get("/healthz") in (200, 503)
    first = connection.connection
    assert first is not None
    assert _wsgi_get("/healthz") in (200, 503)
    assert connection.connection is first


def test_postgres_prepares_statements_unless_turned_off() -> None:
    from evalsite.database import url_database

    url = "postgres://evalsite:secret@db:5432/evalsite"
    on = url_database(url, conn_max_age=60, prepared_statements=True)
    assert on["ENGINE"] == "django.db.backends.postgresql"
    assert on["OPTIONS"] == {
        "server_side_binding": True,
        "prepare_threshold": 5,
        # The default connect timeout (evalsite/dbdeadline.py).
        "connect_timeout": 3,
    }
    assert (on["CONN_MAX_AGE"], on["CONN_HEALTH_CHECKS"]) == (60, True)
    # Off: Django's defaults (client-side binding, nothing prepared).
    off = url_database(url, conn_max_age=60, prepared_statements=False)
    assert off["OPTIONS"] == {"connect_timeout": 3}
    # ... and no named cursors, which a transaction-pooling proxy drops.
    assert off["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert not on.get("DISABLE_SERVER_SIDE_CURSORS")
    # Only psycopg knows the options: another engine never gets them.
    other = url_database(
        "sqlite:////tmp/evalsite.sqlite3", conn_max_age=0, prepared_statements=True
    )
    assert other.get("OPTIONS", {}) == {}


def test_prepared_statements_setting_is_a_strict_boolean() -> None:
    result = manage(
        "check",
        DJANGO_DEBUG="true",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/evalsite",
        DB_PREPARED_STATEMENTS="sometimes",
    )
    assert result.returncode != 0
    assert "DB_PREPARED_STATEMENTS must be one of true/false/1/0" in result.stderr


@pytest.mark.postgres
@pytest.mark.django_db
def test_postgres_prepares_a_statement_a_connection_runs_again_and_again() -> None:
    # A thought's publish runs the same four statements every request; the
    # server parses and plans each once per connection, not once per request.
    from django.db import connection

    from stream.models import Agent

    assert connection.settings_dict["OPTIONS"]["prepare_threshold"] == 5
    for pk in range(6):
        Agent.objects.filter(pk=pk).exists()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT statement FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%stream_agent%"],
        )
        prepared = [row[0] for row in cursor.fetchall()]
    assert len(prepared) == 1
    assert "$1" in prepared[0]
