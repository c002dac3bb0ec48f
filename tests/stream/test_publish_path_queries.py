"""What one POST /thoughts asks the database: below the queue cap four
statements (the key, the reads, the insert, and the counters' update, which
adds the thought to the queue's held count and returns it: below the cap,
the queue is not read) and no prune; over the cap the prune runs in the same request and leaves the
cap held, the snapshots (which only percepts store) alone."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from stream.models import Thought, WorldSnapshot
from tests.builders import thoughts_loaded

pytestmark = pytest.mark.django_db

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT")


def statements(queries: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"]
        for q in queries.captured_queries
        if not q["sql"].upper().startswith(TRANSACTION_CONTROL)
    ]


@override_settings(STREAM_QUEUE_HARD_CAP=20)
def test_below_the_cap_a_post_makes_four_statements_and_no_prune(
    agent: Any, perceive: Any, publish: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive(calm_facts)
    assert publish("The first, which marks the agent seen.").status_code == 201
    thoughts_loaded(agent, 16)  # 18 with the awareness and the first
    # After a bulk load the next publish counts the queue again (19) ...
    assert publish("The queue is counted again.").status_code == 201
    # ... and from then on a publish below the cap reads none of it.
    with CaptureQueriesContext(connection) as queries:
        assert publish("A quiet day by the river.").status_code == 201
    sql = statements(queries)
    assert len(sql) == 4, sql
    assert sql[2].startswith('INSERT INTO "stream_thought"')
    assert sql[3].startswith('UPDATE "stream_agencycounters" SET "queue_held"')
    assert not [s for s in sql if s.startswith("DELETE")]
    assert Thought.objects.filter(agent=agent).count() == 20
    assert log_lines("[CognitiveStream] prune") == []


@override_settings(STREAM_QUEUE_HARD_CAP=20)
def test_over_the_cap_the_post_prunes_thoughts_and_leaves_snapshots(
    agent: Any, perceive: Any, publish: Any, calm_facts: Any, log_lines: Any
) -> None:
    for x in range(3):
        calm_facts["bot"]["position"]["x"] = x
        perceive(calm_facts)
    thoughts_loaded(agent, 17)  # 20 with the three awareness thoughts
    snapshots = WorldSnapshot.objects.filter(agent=agent).count()
    with CaptureQueriesContext(connection) as queries:
        assert publish("One over the cap.").status_code == 201
    assert Thought.objects.filter(agent=agent).count() == 19  # 95% of the cap
    assert log_lines("[CognitiveStream] prune") == [
        "[CognitiveStream] prune before=21 after=19 dropped=2"
    ]
    # The reads take the newest facts; nothing after them touches snapshots.
    after_reads = statements(queries)[2:]
    assert not [s for s in after_reads if "stream_worldsnapshot" in s]
    assert WorldSnapshot.objects.filter(agent=agent).count() == snapshots == 3
