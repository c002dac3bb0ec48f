"""The stream's hot reads walk their own agent's index on PostgreSQL.

Over a skewed table (one agent holds 90% of 20,000 thoughts and every other
agent's thoughts are newer than its own), each read's real statement is
explained and must read the thoughts (or tasks) only through the index made
for it: never a sequential scan, never a walk of a time index shared by all
agents, which discards the newer rows of every other agent before it finds
the asked one's (the feed's cost then grows with other agents' traffic).
"""

from __future__ import annotations

from datetime import timedelta
from importlib import import_module

import pytest
from django.db import connection

from stream.core.thought_types import AWARENESS_TYPE
from stream.models import Task, Thought
from stream.selectors import (
    actionable_counts,
    actionable_queryset,
    recent_content_hashes,
)
from stream.services.aging import thoughts_expired
from stream.services.thought_feed import thoughts_ack
from tests.builders import T0, agent_make, user_make
from tests.query_plans import (
    assert_plan,
    plan_of,
    queryset_plan,
    statement_matching,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

THOUGHTS = 20_000
AGENTS = 20

# Thought g (1..THOUGHTS) belongs to the big agent for the oldest 90%, to the
# others after; every tenth is unprocessed, every twentieth actionable,
# every seventh not broadcast.
SEED_THOUGHTS = """
INSERT INTO stream_thought (type, content, content_hash, processed, processed_at,
  processed_by, convert_eligible, eligibility_reason, grounding_passed, goal_key,
  novelty, broadcast, source, eval_run_id, metadata, created_at, agent_id)
SELECT 'reflection', 'thought ' || g, substr(md5(g::text), 1, 16),
  g %% 10 <> 0, CASE WHEN g %% 10 <> 0 THEN %(t0)s END, '',
  g %% 20 = 0, 'seeded', g %% 20 = 0,
  CASE WHEN g %% 20 = 0 THEN 'collect:oak_log' END,
  'high', g %% 7 <> 0, 'agent', '', '{}', %(t0)s + g * interval '1 second',
  CASE WHEN g <= %(big_rows)s THEN %(big)s
       ELSE (%(others)s::bigint[])[1 + g %% %(n_others)s] END
FROM generate_series(1, %(rows)s) AS g
"""

SEED_TASKS = """
INSERT INTO stream_task (agent_id, thought_id, title, action, target, status,
  progress, blocked_reason, goal_key, origin_kind, origin_name, metadata,
  claimed_by, failure_reason, created_at, updated_at)
SELECT agent_id, id, 'collect oak_log', 'collect', 'oak_log',
  CASE WHEN id % 40 = 0 THEN 'pending' ELSE 'completed' END,
  0, '', goal_key, 'cognition', '', '{}', '', '', created_at, created_at
FROM stream_thought WHERE convert_eligible
"""


@pytest.fixture
def skewed():
    """The big agent and a small one, over the seeded, analyzed tables."""
    owner = user_make("planner")
    agents = [agent_make(owner=owner, name=f"a{i:02d}").agent for i in range(AGENTS)]
    big, others = agents[0], agents[1:]
    with connection.cursor() as cursor:
        cursor.execute(
            SEED_THOUGHTS,
            {
                "t0": T0,
                "rows": THOUGHTS,
                "big_rows": THOUGHTS * 9 // 10,
                "big": big.pk,
                "others": [a.pk for a in others],
                "n_others": len(others),
            },
        )
        cursor.execute(SEED_TASKS)
        cursor.execute("ANALYZE stream_thought")
        cursor.execute("ANALYZE stream_task")
    return big, others[0]


def both(skewed):
    big, small = skewed
    return (("big agent", big), ("small agent", small))


def test_recent_reads_the_agents_broadcast_index_in_order(skewed) -> None:
    for who, agent in both(skewed):
        rows = Thought.objects.filter(agent=agent, broadcast=True).order_by(
            "-created_at", "-pk"
        )[:20]
        assert_plan(
            queryset_plan(rows),
            read=f"recent ({who})",
            table="stream_thought",
            index="thought_recent_idx",
            no_sort=True,
        )


def test_actionable_reads_the_agents_actionable_index_in_order(skewed) -> None:
    for who, agent in both(skewed):
        rows = actionable_queryset(agent).order_by("-created_at", "-pk")[:10]
        assert_plan(
            queryset_plan(rows),
            read=f"actionable ({who})",
            table="stream_thought",
            index="thought_actionable_idx",
            no_sort=True,
        )


def test_the_actionable_counts_are_one_statement_on_the_unprocessed_index(
    skewed,
) -> None:
    big, _ = skewed
    sql = statement_matching(r"COUNT\(", lambda: actionable_counts(agent=big))
    assert_plan(
        plan_of(sql),
        read="actionable counts",
        table="stream_thought",
        index="thought_unprocessed_idx",
    )
    queue = Thought.objects.filter(agent=big, processed=False)
    assert actionable_counts(agent=big) == (
        queue.count(),
        queue.filter(convert_eligible=True).count(),
    )


def test_ack_updates_by_primary_key(skewed) -> None:
    big, _ = skewed
    ids = list(actionable_queryset(big).values_list("pk", flat=True)[:5])
    sql = statement_matching(
        r"^UPDATE", lambda: thoughts_ack(agent=big, thought_ids=ids)
    )
    assert_plan(
        plan_of(sql),
        read="ack's update",
        table="stream_thought",
        index="stream_thought_pkey",
    )


def test_publish_duplicate_reads_walk_the_agents_newest_index(skewed) -> None:
    for who, agent in both(skewed):
        sql = statement_matching(
            r"content_hash",
            lambda agent=agent: recent_content_hashes(
                agent=agent, limit=20, exclude_type="drive_tick"
            ),
        )
        assert_plan(
            plan_of(sql),
            read=f"publish's recent hashes ({who})",
            table="stream_thought",
            index="thought_agent_newest_idx",
            no_sort=True,
        )
        # The percept's duplicate window, written as the percept path writes it.
        window = Thought.objects.filter(
            agent=agent,
            type=AWARENESS_TYPE,
            content_hash="0123456789abcdef",
            created_at__gte=T0 + timedelta(seconds=THOUGHTS - 60),
        )
        sql = statement_matching(r"LIMIT 1", window.exists)
        assert_plan(
            plan_of(sql),
            read=f"percept duplicate window ({who})",
            table="stream_thought",
            index="thought_agent_newest_idx",
        )


def test_the_planning_poll_reads_the_agents_task_indexes(skewed) -> None:
    for who, agent in both(skewed):
        claim = Task.objects.filter(agent=agent, status=Task.Status.PENDING).order_by(
            "created_at", "pk"
        )[:1]
        assert_plan(
            queryset_plan(claim),
            read=f"claim's next pending task ({who})",
            table="stream_task",
            index="task_queue_order_idx",
            no_sort=True,
        )
        newest = Task.objects.filter(agent=agent).order_by("-created_at", "-pk")[:100]
        assert_plan(
            queryset_plan(newest),
            read=f"task list ({who})",
            table="stream_task",
            index="task_agent_newest_idx",
            no_sort=True,
        )


def test_a_retention_sweep_with_nothing_to_delete_reads_the_time_brin(
    skewed,
) -> None:
    # Every seeded thought is newer than the cutoffs as of T0.
    expired = Thought.objects.filter(thoughts_expired(now=T0, days=0))
    assert_plan(
        queryset_plan(expired.order_by("pk").values_list("pk", flat=True)[:1000]),
        read="retention sweep (nothing expired)",
        table="stream_thought",
        index="thought_created_brin",
    )


def test_the_migrations_build_outside_a_transaction_and_leave_no_time_btree() -> None:
    for name in ("0011_feeds_walk_their_agent", "0012_thought_time_brin"):
        migration = import_module(f"stream.migrations.{name}")
        assert migration.Migration.atomic is False
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename IN "
            "('stream_thought', 'stream_task') AND indexdef LIKE %s",
            ["%btree (created_at)"],
        )
        assert cursor.fetchall() == []
        cursor.execute(
            "SELECT count(*) FROM pg_index JOIN pg_class ON pg_class.oid = indexrelid "
            "WHERE (relname LIKE 'thought_%%' OR relname LIKE 'task_%%') "
            "AND NOT indisvalid"
        )
        assert cursor.fetchone() == (0,)
