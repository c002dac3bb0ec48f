"""The span list's plan on PostgreSQL, over a skewed table (one agent holds
half of 20,000 spans, older than every other agent's): the list of all spans
walks the start-time index newest first and stops at the page, never a
sequential scan of the spans.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.builders import T0, agent_make, user_make
from tests.query_plans import assert_plan, plan_of
from traces.selectors import SpanFilters, span_list

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

SPANS = 20_000
AGENTS = 60

SEED_SPANS = """
INSERT INTO traces_span (trace_id, span_id, parent_span_id, name, kind, source,
  operation, provider, request_model, response_model, request_params,
  cost_source, price_version, started_at, ended_at, finish_reason, status, error,
  conversation_id, tool_name, run_ref, case_ref, attributes, events, received_at,
  agent_id)
SELECT md5(g::text), substr(md5(g::text), 1, 16), '', 'chat', 'client', 'agent',
  'chat', 'openai', 'gpt', 'gpt', '{}', 'priced', 'v1',
  %(t0)s + g * interval '1 second', %(t0)s + g * interval '1 second', 'stop',
  'ok', '', '', '', '', '', '{}', '[]', %(t0)s,
  CASE WHEN g <= %(big_rows)s THEN %(big)s
       ELSE (%(others)s::bigint[])[1 + g %% %(n_others)s] END
FROM generate_series(1, %(rows)s) AS g
"""


@pytest.fixture
def skewed():
    owner = user_make("tracer", is_staff=True)
    agents = [agent_make(owner=owner, name=f"t{i:02d}").agent for i in range(AGENTS)]
    big, others = agents[0], agents[1:]
    with connection.cursor() as cursor:
        cursor.execute(
            SEED_SPANS,
            {
                "t0": T0,
                "rows": SPANS,
                "big_rows": SPANS // 2,
                "big": big.pk,
                "others": [a.pk for a in others],
                "n_others": len(others),
            },
        )
        cursor.execute("ANALYZE traces_span")
    return owner, big, others[0]


def span_list_plan(user, filters: SpanFilters):
    with CaptureQueriesContext(connection) as queries:
        span_list(user=user, filters=filters)
    (sql,) = [q["sql"] for q in queries if '"traces_span"' in q["sql"]]
    return plan_of(sql)


def test_the_list_of_all_spans_walks_the_start_time_index(skewed) -> None:
    staff, _, _ = skewed
    assert_plan(
        span_list_plan(staff, SpanFilters()),
        read="span list",
        table="traces_span",
        index="span_started_idx",
    )
