"""The embedded database: one SQLite file shared by web, worker and beat.

Settings use it when ``DATABASE_URL`` is unset. The processes share the file,
so each waits for the lock instead of failing (``busy_timeout``, ``timeout``)
and takes the write lock when a transaction starts, so two writers never
deadlock upgrading read locks (``transaction_mode``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def sqlite_database(path: Path) -> dict[str, Any]:
    """The ``DATABASES["default"]`` entry for the SQLite file at ``path``."""
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        "OPTIONS": {
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                "PRAGMA busy_timeout=10000;"
            ),
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        },
    }
