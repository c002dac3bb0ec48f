"""The thoughts table converted to monthly partitions on PostgreSQL with
every row (writes made during the copy replayed), the feeds working on it,
its months made ahead and dropped past retention, and back to plain."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from stream.models import Task, Thought
from stream.services import partitions
from stream.services.aging import retention_sweep
from tests.builders import agent_make, key_client, user_make

API = "/api/cognitive-stream/"
GOAL = "Two cows graze nearby. [GOAL: collect oak_log 4]"
FACTS = {
    "bot": {
        "position": {"x": 10, "y": 64, "z": -3},
        "health": 20,
        "hunger": 18,
        "inventorySummary": [{"item": "oak_log", "count": 4}],
        "timeOfDay": "day",
    },
    "world": {"biome": "forest", "nearbyEntities": []},
}


def _catalog(sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _indexes() -> list[str]:
    return [
        name
        for (name,) in _catalog(
            "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE i.indrelid = 'stream_thought'::regclass ORDER BY 1"
        )
    ]


def _task_fk() -> list[tuple[Any, ...]]:
    return _catalog(
        "SELECT conname FROM pg_constraint WHERE contype = 'f' "
        "AND confrelid = 'stream_thought'::regclass"
    )


@pytest.fixture
def throwaway_db(transactional_db: None) -> Iterator[str]:
    """A copy of the (migrated, empty) test database the test may convert;
    dropped afterwards, so no other test sees a partitioned table."""
    params = connection.settings_dict
    original, copy = params["NAME"], f"{params['NAME']}_partition"
    connection.close()
    admin = {
        "host": params["HOST"] or None,
        "port": params["PORT"] or None,
        "user": params["USER"] or None,
        "password": params["PASSWORD"] or None,
        "dbname": "postgres",
        "autocommit": True,
    }
    with psycopg.connect(**admin) as server:
        server.execute(f'DROP DATABASE IF EXISTS "{copy}"')
        server.execute(f'CREATE DATABASE "{copy}" TEMPLATE "{original}"')
    params["NAME"] = copy
    try:
        yield copy
    finally:
        connection.close()
        params["NAME"] = original
        with psycopg.connect(**admin) as server:
            server.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')


def _seed(agent: Any, months_back: int) -> list[int]:
    """One processed thought in each of the last ``months_back`` months."""
    now = timezone.now()
    Thought.objects.bulk_create(
        Thought(
            agent=agent,
            type="reflection",
            content=f"old {n}",
            content_hash=f"{n:016x}",
            processed=True,
            processed_at=now - timedelta(days=31 * n),
            eligibility_reason="no goal",
            source="api",
            created_at=now - timedelta(days=31 * n),
        )
        for n in range(months_back, 0, -1)
    )
    return list(Thought.objects.order_by("pk").values_list("pk", flat=True))


@pytest.mark.postgres
@override_settings(STREAM_THOUGHT_PARTITIONING=True, THOUGHT_RETENTION_DAYS=100)
def test_apply_converts_with_every_row_the_feeds_work_and_apply_goes_back(
    throwaway_db: str,
) -> None:
    created = agent_make(owner=user_make("alice"), name="alpha")
    client = key_client(created.api_key)
    old = _seed(created.agent, months_back=5)
    client.post(f"{API}percepts", {"facts": FACTS}, format="json")
    goal = client.post(f"{API}thoughts", {"content": GOAL}, format="json").json()["id"]
    task = Task.objects.create(
        agent=created.agent,
        thought_id=old[0],
        title="t",
        action="collect",
        created_at=timezone.now(),
        updated_at=timezone.now(),
    )
    indexes_before = _indexes()
    rows_before = list(Thought.objects.order_by("pk").values_list("pk", "content"))

    reports: list[int] = []

    def write_meanwhile(line: str) -> None:
        # Writes after the copy passed these ids: the swap replays them.
        if not line.startswith("copied "):
            return
        copied = int(line.split()[1])
        if copied >= 4 and not reports:
            reports.append(copied)
            Thought.objects.filter(pk=old[1]).update(content="changed")
            Thought.objects.filter(pk=old[2]).delete()

    plan = partitions.convert(batch=2, report=write_meanwhile)
    assert len(reports) == 1  # the writes came after their rows were copied

    assert plan.target == "partitioned"
    assert partitions.is_partitioned() is True
    expected = [(pk, "changed" if pk == old[1] else c) for pk, c in rows_before]
    expected = [row for row in expected if row[0] != old[2]]
    assert list(Thought.objects.order_by("pk").values_list("pk", "content")) == (
        expected
    )
    assert _indexes() == sorted([*indexes_before])
    assert _task_fk() == []
    months = {
        name
        for (name,) in _catalog(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = 'stream_thought'::regclass"
        )
    }
    today = timezone.now().date()
    assert f"stream_thought_p{today:%Y%m}" in months
    assert "stream_thought_pdefault" in months
    assert len(months) >= 5 + 3 + 1

    # The feeds on the partitioned table: publish, recent, actionable, ack.
    newer = client.post(f"{API}thoughts", {"content": GOAL + " again"}, format="json")
    assert newer.status_code == 201
    assert newer.json()["id"] > goal
    recent = client.get(f"{API}recent?limit=3").json()
    assert [t["id"] for t in recent["thoughts"]][:1] == [newer.json()["id"]]
    actionable = client.get(f"{API}actionable?limit=10").json()
    assert goal in [t["id"] for t in actionable["thoughts"]]
    acked = client.post(f"{API}ack", {"thoughtIds": [goal]}, format="json").json()
    assert acked["acked"] == 1

    # Retention on it: the old rows go, the task stays without its thought.
    retention_sweep()
    task.refresh_from_db()
    assert task.thought_id is None
    assert Thought.objects.filter(pk__in=old).count() == 2  # the last 100 days

    # Partitions ahead: made for months not yet there, none twice.
    made = partitions.partitions_ahead(today=date(today.year + 2, 1, 15))
    assert made[0] == f"stream_thought_p{today.year + 2}01"
    assert partitions.partitions_ahead(today=date(today.year + 2, 1, 15)) == []

    # Months past retention are dropped whole (the sweep emptied them).
    dropped = partitions.partitions_expired()
    assert (
        dropped
        == sorted(name for name in months if name < f"stream_thought_p{today:%Y%m}")[
            : len(dropped)
        ]
    )
    assert len(dropped) >= 2
    assert partitions.partitions_expired() == []

    # Back to a plain table: the same indexes, the task's foreign key again.
    rows_before = list(Thought.objects.order_by("pk").values_list("pk", "content"))
    with pytest.raises(partitions.PartitioningRefused, match="--drop-old"):
        partitions.convert(batch=2)
    assert partitions.drop_old() == "stream_thought_unpartitioned"
    back = partitions.convert(batch=1000)
    assert back.target == "plain"
    assert partitions.is_partitioned() is False
    assert _indexes() == indexes_before
    assert len(_task_fk()) == 1
    assert list(Thought.objects.order_by("pk").values_list("pk", "content")) == (
        rows_before
    )
    assert partitions.drop_old() == "stream_thought_partitioned"


def test_a_partition_upkeep_does_nothing_while_the_setting_is_off(db: None) -> None:
    assert partitions.partitions_ahead(today=datetime(2030, 1, 1, tzinfo=UTC)) == []
    assert partitions.partitions_expired(now=datetime(2030, 1, 1, tzinfo=UTC)) == []


@pytest.mark.postgres
@override_settings(STREAM_THOUGHT_PARTITIONING=True)
def test_abort_removes_what_a_stopped_conversion_left(throwaway_db: str) -> None:
    _, plan = partitions.conversion_now()
    with connection.cursor() as cursor:
        for sql in plan.prepare:
            cursor.execute(sql)
    with pytest.raises(partitions.PartitioningRefused, match="--abort"):
        partitions.convert(batch=10)
    assert partitions.abort()[-1] == "DROP TABLE IF EXISTS stream_thought_part CASCADE"
    assert _catalog("SELECT to_regclass('stream_thought_changes')") == [(None,)]
    assert _catalog(
        "SELECT count(*) FROM pg_trigger WHERE tgname = 'stream_thought_note_change'"
    ) == [(0,)]
    assert partitions.convert(batch=10).target == "partitioned"


@pytest.mark.postgres
@override_settings(STREAM_THOUGHT_PARTITIONING=True)
def test_the_upkeep_warns_while_the_setting_is_on_and_the_table_plain(
    db: None, log_lines: Any
) -> None:
    assert partitions.partitions_ahead() == []
    assert log_lines("[Retention]") == [
        "[Retention] partitioning_pending table=stream_thought "
        "reason=STREAM_THOUGHT_PARTITIONING is on and the table is plain "
        "(run manage.py partition_thoughts --apply)"
    ]
