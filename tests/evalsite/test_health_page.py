"""The service-health page: the overview's tile opens a page that says, in
a table and plain words, what works (the database, the task queue, the
worker), instead of the raw JSON that ``/healthz`` keeps for machines."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from core.health import DATABASE_NAMES, health_rows
from evalsite.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db

# The suite runs on SQLite and on PostgreSQL: the page names the one in use.
DATABASE = DATABASE_NAMES[connection.vendor]


def test_the_overview_health_tile_opens_the_health_page(owner_client: Client) -> None:
    html = owner_client.get("/").content.decode()

    assert '<a class="tile" href="/health/">' in html or (
        '<a class="tile tile-alert" href="/health/">' in html
    )
    assert 'href="/healthz"' not in html
    assert f'Database ({DATABASE}): <span class="good">answering</span>' in html


def test_the_health_page_is_a_table_in_plain_words(client: Client) -> None:
    WorkerHeartbeat.objects.create(
        source="beat",
        hostname="h",
        pid=1,
        last_seen_at=timezone.now() - timedelta(seconds=12),
        beats=3,
    )

    response = client.get("/health/")

    html = response.content.decode()
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert "Everything is working." in html
    assert (
        f'<tr><td>Database ({DATABASE})</td><td data-label="State"><span class="pass">'
        "answering</span></td>"
    ) in html
    assert '<span class="pass">accepting work</span>' in html
    assert '<span class="pass">last seen 12 seconds ago</span>' in html
    assert "{" not in html.split("<main", 1)[1].split("</main>", 1)[0]
    assert '<a href="/healthz"><code>/healthz</code></a>' in html


def test_the_health_page_says_what_a_broken_part_means(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "evalsite.services.broker_reachable", lambda: "ConnectionRefusedError"
    )

    html = client.get("/health/").content.decode()

    assert "Something needs attention: see below." in html
    assert '<span class="fail">not reachable</span>' in html
    assert "New eval runs and gridworld batches cannot be started now" in html
    assert '<span class="fail">never seen</span>' in html
    assert "No worker has checked in yet" in html


def test_health_rows_judge_the_worker_by_missed_heartbeats() -> None:
    def worker(seen: float | None) -> tuple[bool, str]:
        row = health_rows(
            database="postgresql",
            database_ok=False,
            broker="external",
            broker_ok=True,
            worker_last_seen_s=seen,
            heartbeat_s=30,
        )[2]
        return row.ok, row.state

    first = health_rows(
        database="postgresql",
        database_ok=False,
        broker="external",
        broker_ok=True,
        worker_last_seen_s=None,
        heartbeat_s=30,
    )
    assert [(r.part, r.ok, r.state) for r in first[:2]] == [
        ("Database (PostgreSQL)", False, "not answering"),
        ("Task queue (external server)", True, "accepting work"),
    ]
    assert worker(1) == (True, "last seen 1 second ago")
    assert worker(90) == (True, "last seen 90 seconds ago")
    assert worker(91) == (False, "last seen 91 seconds ago")
    assert worker(600) == (False, "last seen 10 minutes ago")
    assert worker(3 * 86400) == (False, "last seen 3 days ago")
    assert worker(None) == (False, "never seen")
