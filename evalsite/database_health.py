"""Whether the database answers: the worker's start-up check and the health
page's, in a module the Celery app can import without the project's use
cases (``evalsite.services`` sends work through the Celery app)."""

from __future__ import annotations

from django.db import connection

from evalsite.models import WorkerHeartbeat


def database_reachable() -> str | None:
    """None when the database answers and is migrated, else the reason
    (an exception's class and first line; never a connection string)."""
    try:
        WorkerHeartbeat.objects.exists()
    except Exception as exc:  # whatever the driver raises, the answer is "no"
        connection.close_if_unusable_or_obsolete()
        first_line = str(exc).strip().splitlines()[:1]
        return f"{type(exc).__name__}: {first_line[0] if first_line else ''}".strip()
    return None
