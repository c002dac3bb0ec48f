"""The SQL of a thoughts-table conversion, from facts (no database)."""

from __future__ import annotations

from datetime import date

import pytest

from stream.core.partitions import (
    ForeignKeyIn,
    TableFacts,
    conversion,
    months,
    months_ahead,
    months_expired,
    partition_sql,
    pg_name,
    rewrite_index,
)

FK_IN = ForeignKeyIn(table="stream_task", name="task_thought_fk", column="thought_id")


def facts(*, partitioned: bool = False, first: date | None = None) -> TableFacts:
    return TableFacts(
        table="stream_thought",
        partitioned=partitioned,
        indexes=(
            (
                "thought_recent_idx",
                "CREATE INDEX thought_recent_idx ON public.stream_thought USING btree "
                "(agent_id, created_at DESC, id DESC) WHERE broadcast",
            ),
        ),
        pk_name="stream_thought_pkey",
        fks_out=(
            ("thought_agent_fk", "FOREIGN KEY (agent_id) REFERENCES stream_agent(id)"),
        ),
        fks_in=(FK_IN,),
        sequence="public.stream_thought_id_seq",
        first_month=first,
        max_id=41,
    )


def test_months_cover_every_month_across_a_year_end() -> None:
    assert months(date(2026, 11, 17), date(2027, 2, 1)) == [
        date(2026, 11, 1),
        date(2026, 12, 1),
        date(2027, 1, 1),
        date(2027, 2, 1),
    ]
    assert months_ahead(date(2026, 12, 31), 2) == [
        date(2026, 12, 1),
        date(2027, 1, 1),
        date(2027, 2, 1),
    ]


def test_a_partition_spans_one_utc_month() -> None:
    assert partition_sql("stream_thought", "stream_thought", date(2026, 12, 1)) == (
        "CREATE TABLE IF NOT EXISTS stream_thought_p202612 PARTITION OF "
        "stream_thought FOR VALUES FROM ('2026-12-01 00:00:00+00') "
        "TO ('2027-01-01 00:00:00+00')"
    )


@pytest.mark.parametrize(
    ("indexdef", "add_key", "expected"),
    [
        (
            "CREATE INDEX a ON public.t USING btree (agent_id) WHERE (NOT processed)",
            True,
            "CREATE INDEX b ON n USING btree (agent_id) WHERE (NOT processed)",
        ),
        (
            "CREATE UNIQUE INDEX a ON public.t USING btree (agent_id, lower((x)::text))",
            True,
            "CREATE UNIQUE INDEX b ON n USING btree (agent_id, lower((x)::text), "
            "created_at)",
        ),
        (
            "CREATE UNIQUE INDEX a ON ONLY public.t USING btree (id, created_at)",
            True,
            "CREATE UNIQUE INDEX b ON n USING btree (id, created_at)",
        ),
        (
            "CREATE UNIQUE INDEX a ON ONLY public.t USING btree (x)",
            False,
            "CREATE UNIQUE INDEX b ON n USING btree (x)",
        ),
    ],
)
def test_an_index_is_rewritten_for_the_new_table(
    indexdef: str, add_key: bool, expected: str
) -> None:
    assert rewrite_index(indexdef, name="b", table="n", add_key=add_key) == expected


def test_a_name_is_cut_to_postgresqls_limit() -> None:
    assert pg_name("x" * 70, "_new") == "x" * 59 + "_new"


def test_to_partitioned_builds_months_from_the_oldest_row_and_drops_fks_in() -> None:
    plan = conversion(facts(first=date(2026, 9, 5)), today=date(2026, 11, 27), ahead=1)
    assert plan.target == "partitioned"
    assert plan.new_table == "stream_thought_part"
    assert plan.old_name == "stream_thought_unpartitioned"
    made = [s.split()[5] for s in plan.prepare if "PARTITION OF" in s]
    assert made == [
        "stream_thought_p202609",
        "stream_thought_p202610",
        "stream_thought_p202611",
        "stream_thought_p202612",
        "stream_thought_pdefault",
    ]
    assert (
        "ALTER TABLE stream_thought_part ADD CONSTRAINT stream_thought_part_pkey "
        "PRIMARY KEY (id, created_at)" in plan.prepare
    )
    assert "ALTER TABLE stream_task DROP CONSTRAINT task_thought_fk" in plan.swap
    assert plan.swap[:2] == (
        "SET LOCAL lock_timeout = '10s'",
        "LOCK TABLE stream_thought IN ACCESS EXCLUSIVE MODE",
    )
    assert plan.copy_batch == (
        "INSERT INTO stream_thought_part SELECT * FROM stream_thought "
        "WHERE id >= %(lo)s AND id < %(hi)s"
    )


def test_back_to_plain_restores_the_fks_after_clearing_dangling_ids() -> None:
    plan = conversion(facts(partitioned=True), today=date(2026, 11, 27), ahead=3)
    assert plan.target == "plain"
    assert not any("PARTITION" in sql for sql in plan.prepare)
    assert (
        "ALTER TABLE stream_thought_plain ADD CONSTRAINT stream_thought_plain_pkey "
        "PRIMARY KEY (id)" in plan.prepare
    )
    assert plan.swap[-2:] == (
        "UPDATE stream_task SET thought_id = NULL WHERE thought_id IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM stream_thought t "
        "WHERE t.id = stream_task.thought_id)",
        "ALTER TABLE stream_task ADD CONSTRAINT task_thought_fk FOREIGN KEY "
        "(thought_id) REFERENCES stream_thought (id) DEFERRABLE INITIALLY DEFERRED",
    )


def test_an_empty_table_starts_its_months_today() -> None:
    plan = conversion(facts(), today=date(2026, 11, 27), ahead=0)
    made = [s.split()[5] for s in plan.prepare if "PARTITION OF" in s]
    assert made == ["stream_thought_p202611", "stream_thought_pdefault"]


def test_only_whole_months_before_the_cutoff_expire() -> None:
    names = [
        "stream_thought_p202609",
        "stream_thought_p202610",
        "stream_thought_p202611",
        "stream_thought_pdefault",
        "stream_thought_p202613",
        "other_p202601",
    ]
    cutoff = date(2026, 11, 1)
    assert months_expired(names, table="stream_thought", cutoff=cutoff) == [
        "stream_thought_p202609",
        "stream_thought_p202610",
    ]
    assert months_expired(names, table="stream_thought", cutoff=date(2026, 10, 31)) == [
        "stream_thought_p202609"
    ]
