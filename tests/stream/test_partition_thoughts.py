"""``manage.py partition_thoughts``: --plan prints the conversion and changes
nothing, --apply waits for the setting, and both need PostgreSQL (the
conversion itself: tests/stream/services/test_partitions.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from stream.services import partitions


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


def test_plan_and_apply_need_postgresql(db: None) -> None:
    if connection.vendor == "postgresql":
        pytest.skip("checks the SQLite answer")
    for flag in ("--plan", "--apply"):
        with pytest.raises(CommandError, match="partitioning needs PostgreSQL"):
            call_command("partition_thoughts", flag)


@pytest.mark.postgres
def test_plan_prints_each_step_and_changes_nothing(db: None, capsys: Any) -> None:
    before = _indexes()
    call_command("partition_thoughts", "--plan", "--batch", "1000")
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "-- stream_thought: plain -> partitioned; ids up to 0"
    month = timezone.now().date().replace(day=1)
    for line in (
        "CREATE TABLE stream_thought_part (LIKE stream_thought INCLUDING DEFAULTS "
        "INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING STORAGE INCLUDING "
        "COMMENTS) PARTITION BY RANGE (created_at);",
        "ALTER TABLE stream_thought_part ADD CONSTRAINT stream_thought_part_pkey "
        "PRIMARY KEY (id, created_at);",
        f"CREATE TABLE IF NOT EXISTS stream_thought_p{month:%Y%m} PARTITION OF "
        f"stream_thought_part FOR VALUES FROM ('{month:%Y-%m-%d} 00:00:00+00') TO (",
        "CREATE TABLE IF NOT EXISTS stream_thought_pdefault PARTITION OF "
        "stream_thought_part DEFAULT;",
        "CREATE INDEX thought_recent_idx_new ON stream_thought_part USING btree "
        "(agent_id, created_at DESC, id DESC) WHERE broadcast;",
        "-- 2. for lo = 0, 1000, 2000, ... up to 0: one transaction each",
        "LOCK TABLE stream_thought IN ACCESS EXCLUSIVE MODE;",
        "ALTER TABLE stream_thought RENAME TO stream_thought_unpartitioned;",
        "ALTER TABLE stream_thought_part RENAME TO stream_thought;",
        "ALTER INDEX thought_recent_idx_new RENAME TO thought_recent_idx;",
    ):
        assert line in out
    assert any(
        line.startswith("ALTER TABLE stream_task DROP CONSTRAINT ")
        for line in out.splitlines()
    )
    assert partitions.is_partitioned() is False
    assert _indexes() == before


@pytest.mark.postgres
def test_apply_refuses_while_the_setting_is_off(db: None) -> None:
    with pytest.raises(CommandError, match="STREAM_THOUGHT_PARTITIONING is off"):
        call_command("partition_thoughts", "--apply")
    assert partitions.is_partitioned() is False
