"""The ``DATABASES["default"]`` entry: the database at ``DATABASE_URL``
(Postgres in production), else the embedded database, one SQLite file
shared by web, worker and beat.

On SQLite the processes share the file, so each waits for the lock instead
of failing (``busy_timeout``, ``timeout``) and takes the write lock when a
transaction starts, so two writers never deadlock upgrading read locks
(``transaction_mode``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from evalsite.env import env_bool, env_int, env_secret

# The engines evalsite runs on (psycopg is the only database driver installed).
DATABASE_SCHEMES = ("postgres", "postgresql", "pgsql", "sqlite")

# Runs of a statement on one connection before psycopg prepares it.
PREPARE_THRESHOLD = 5


def default_database(var_dir: Path) -> dict[str, Any]:
    """The entry the environment asks for: the database at ``DATABASE_URL``
    (read like every secret, from ``NAME`` or ``NAME_FILE``: URLs carry
    passwords), else the embedded SQLite file under ``var_dir``.
    ``DB_CONN_MAX_AGE`` (60) is how many seconds a request's or task's
    connection is kept for the next one; ``DB_PREPARED_STATEMENTS`` (on) is
    turned off behind a transaction-pooling proxy that keeps no prepared
    statements (``url_database``); ``DB_CONNECT_TIMEOUT_S`` (3) and
    ``DB_STATEMENT_TIMEOUT_S`` (30) bound a connection and a statement
    (``database_timeouts``)."""
    conn_max_age = env_int("DB_CONN_MAX_AGE", 60, minimum=0)
    url = env_secret("DATABASE_URL")
    if url:
        prepared_statements = env_bool("DB_PREPARED_STATEMENTS", True)
        connect_timeout_s, _ = database_timeouts()
        try:
            if url.split("://", 1)[0] not in DATABASE_SCHEMES or "://" not in url:
                raise ValueError(url)
            return url_database(
                url,
                conn_max_age=conn_max_age,
                prepared_statements=prepared_statements,
                connect_timeout_s=connect_timeout_s,
            )
        except ValueError:
            # Neither the value nor the parser's message (which quotes it):
            # the URL carries a password.
            raise ImproperlyConfigured(
                "DATABASE_URL must be a postgres:// URL "
                "(postgres://user:password@host:5432/name; sqlite:///path for "
                "a file); its value is not shown"
            ) from None
    # Shared by web, worker and beat.
    return sqlite_database(var_dir / "evalsite.sqlite3", conn_max_age=conn_max_age)


def database_timeouts() -> tuple[int, int]:
    """``(DB_CONNECT_TIMEOUT_S, DB_STATEMENT_TIMEOUT_S)``: how long a new
    connection (and the check of a kept one) may take, in every process,
    and how long one statement of a web request may run (0: no limit;
    workers and commands such as ``migrate`` are not limited), on
    PostgreSQL. A server that stops answering altogether is cut off by
    ``evalsite.dbdeadline``."""
    return (
        env_int("DB_CONNECT_TIMEOUT_S", 3, minimum=2),
        env_int("DB_STATEMENT_TIMEOUT_S", 30, minimum=0),
    )


def url_database(
    url: str,
    *,
    conn_max_age: int,
    prepared_statements: bool,
    connect_timeout_s: int = 3,
) -> dict[str, Any]:
    """The ``DATABASES["default"]`` entry for the database at ``url``.

    With ``prepared_statements`` on Postgres, parameters are bound on the
    server and psycopg prepares a statement once a connection has run it
    five times, so the server parses and plans the hot statements (a
    thought's publish runs four) once per connection instead of once per
    request: 30-45% more single POST /thoughts a second. Binding on the
    server without preparing measured 5-10% slower than Django's default.
    Off, Django's defaults stay (client-side binding, nothing prepared):
    prepared statements live on one server connection, which a
    transaction-pooling proxy older than PgBouncer 1.21 hands to other
    clients between transactions. Off also turns server-side cursors off
    (``DISABLE_SERVER_SIDE_CURSORS``): ``.iterator()`` reads (the eval
    store's export, the outcome reads) would otherwise open a named cursor
    that such a proxy does not keep across transactions.
    """
    database = dj_database_url.parse(
        url, conn_max_age=conn_max_age, conn_health_checks=True
    )
    if not database["ENGINE"].endswith("postgresql"):
        return database
    options = database.setdefault("OPTIONS", {})
    options.setdefault("connect_timeout", connect_timeout_s)
    if prepared_statements:
        options["server_side_binding"] = True
        options["prepare_threshold"] = PREPARE_THRESHOLD
    else:
        database["DISABLE_SERVER_SIDE_CURSORS"] = True
    return database


def sqlite_database(path: Path, *, conn_max_age: int) -> dict[str, Any]:
    """The ``DATABASES["default"]`` entry for the SQLite file at ``path``.

    A connection is kept for ``conn_max_age`` seconds, as on Postgres:
    opening one runs the pragmas and maps the WAL index (about 2 ms), which
    made a new connection per request cost more than the request itself
    (150 against 470 POST /thoughts a second through the WSGI handler). In
    autocommit a kept connection holds no lock and no snapshot.
    """
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        "CONN_MAX_AGE": conn_max_age,
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                "PRAGMA busy_timeout=10000;"
            ),
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        },
    }
