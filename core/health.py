"""The service-health page in plain words: each part of the service, whether
it works, and what that means for someone using the site. Pure: the checks
themselves are made by ``evalsite.services.health_get``."""

from __future__ import annotations

from dataclasses import dataclass

# A worker that has not checked in for this many heartbeat intervals is
# reported as not seen (one late beat is not an outage).
MISSED_BEATS = 3

DATABASE_NAMES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


@dataclass(frozen=True, slots=True)
class HealthRow:
    """One part of the service: its name, ``ok``, a short state and what it
    means."""

    part: str
    ok: bool
    state: str
    meaning: str


def _duration(seconds: float) -> str:
    whole = int(seconds)
    if whole < 120:
        return f"{whole} second{'s' if whole != 1 else ''}"
    if whole < 2 * 3600:
        return f"{whole // 60} minutes"
    if whole < 2 * 86400:
        return f"{whole // 3600} hours"
    return f"{whole // 86400} days"


def health_rows(
    *,
    database: str,
    database_ok: bool,
    broker: str,
    broker_ok: bool,
    worker_last_seen_s: float | None,
    heartbeat_s: float,
) -> list[HealthRow]:
    """The database, the task broker and the background worker, in that
    order. ``database`` is the driver's vendor name, ``broker`` is
    ``embedded`` or ``external``; ``worker_last_seen_s`` is None when no
    worker ever checked in; ``heartbeat_s`` is how often a worker does."""
    name = DATABASE_NAMES.get(database, database)
    rows = [
        HealthRow(
            part=f"Database ({name})",
            ok=database_ok,
            state="answering" if database_ok else "not answering",
            meaning="Pages and the API read and store data."
            if database_ok
            else "Pages and the API answer that the service is unavailable "
            "until it is back; nothing is lost.",
        ),
        HealthRow(
            part="Task queue ("
            + ("built in" if broker == "embedded" else "external server")
            + ")",
            ok=broker_ok,
            state="accepting work" if broker_ok else "not reachable",
            meaning="New eval runs and gridworld batches are queued for the worker."
            if broker_ok
            else "New eval runs and gridworld batches cannot be started now; "
            "the site says so instead of queueing them.",
        ),
    ]
    limit = MISSED_BEATS * heartbeat_s
    if worker_last_seen_s is None:
        rows.append(
            HealthRow(
                part="Background worker",
                ok=False,
                state="never seen",
                meaning="No worker has checked in yet: queued runs wait until "
                "one is started.",
            )
        )
    else:
        ago = _duration(max(worker_last_seen_s, 0))
        fresh = worker_last_seen_s <= limit
        rows.append(
            HealthRow(
                part="Background worker",
                ok=fresh,
                state=f"last seen {ago} ago",
                meaning=f"It checks in every {_duration(heartbeat_s)}; queued "
                "runs are being worked on."
                if fresh
                else f"It should check in every {_duration(heartbeat_s)}: it "
                "may be stopped, and queued runs wait until it is back.",
            )
        )
    return rows
