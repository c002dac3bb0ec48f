"""Stream ingest and feed latency, next to the same database's raw insert rate.

    .venv/bin/python bench/stream.py            # embedded SQLite (a temp file)
    DATABASE_URL=postgres://... .venv/bin/python bench/stream.py

Prints thoughts/s through POST /api/cognitive-stream/thoughts (single and
batches of 100, the whole Django + DRF + pipeline stack in-process, called
as gunicorn or runserver call it: the WSGI handler, with the request
signals that close a connection past CONN_MAX_AGE, which the test client
leaves out), the raw
insert rate of comparable rows into the same database (executemany, measured
in the same run), their ratio (target >= 25%), and p50/p95 of GET /actionable
with 100,000 stored thoughts (target p95 < 20 ms).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TMP = tempfile.mkdtemp(prefix="evalsite-bench-")
os.environ.setdefault("EVALSITE_VAR_DIR", TMP)
os.environ["DJANGO_DEBUG"] = "false"  # production code paths
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "k" * 50)
os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "false"
if os.environ.get("DATABASE_URL", "").startswith("postgres"):
    # A throwaway database beside the configured one, made fresh each run.
    import psycopg

    # Named after the configured one, so benches against different databases
    # on one server do not drop each other's.
    base, _, name = os.environ["DATABASE_URL"].rpartition("/")
    bench_db = f"{name.split('?')[0]}_bench"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as pg:
        pg.execute(f'DROP DATABASE IF EXISTS "{bench_db}"')
        pg.execute(f'CREATE DATABASE "{bench_db}"')
    os.environ["DATABASE_URL"] = f"{base}/{bench_db}"
os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
os.environ["LOG_LEVEL"] = "WARNING"
os.environ["STREAM_QUEUE_HARD_CAP"] = "1000000"
os.environ["STREAM_DEDUP_WINDOW"] = "20"

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

SINGLE = 500
WARMUP = 20
BATCHES = 20
BATCH = 100
STORED = 100_000
FEED_CALLS = 300
RAW_ROWS = 20_000


class Wsgi:
    """Requests through Django's WSGI handler, as a server makes them (the
    request factory only builds the environ)."""

    def __init__(self, api_key: str) -> None:
        from django.core.handlers.wsgi import WSGIHandler
        from django.test import RequestFactory

        self.handler = WSGIHandler()
        self.factory = RequestFactory(HTTP_AUTHORIZATION=f"Bearer {api_key}")

    def post(self, path: str, payload: object) -> int:
        request = self.factory.post(path, payload, content_type="application/json")
        statuses: list[str] = []
        body = self.handler(request.environ, lambda status, _h: statuses.append(status))
        b"".join(body)
        return int(statuses[0].split()[0])


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(-(-p * len(ordered) // 1)) - 1)]


def main() -> None:
    call_command("migrate", verbosity=0)
    from stream.models import Thought
    from stream.services.agents import agent_create

    user = get_user_model().objects.create_user("bench", password="x")  # noqa: S106
    created = agent_create(name=f"bench-{int(time.time())}", owner=user)
    agent = created.agent
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {created.api_key}")
    facts = {
        "bot": {
            "position": {"x": 1, "y": 64, "z": 2},
            "health": 20,
            "hunger": 18,
            "inventorySummary": [{"item": "oak_log", "count": 4}],
            "timeOfDay": "day",
        },
        "world": {
            "biome": "forest",
            "nearbyEntities": [{"kind": "cow", "count": 2, "distanceMin": 6}],
        },
    }
    client.post("/api/cognitive-stream/percepts", {"facts": facts}, format="json")
    server = Wsgi(created.api_key)

    def text(i: int) -> str:
        goal = " [GOAL: collect oak_log 2]" if i % 10 == 0 else ""
        return f"Observation {i}: two cows graze at the forest edge.{goal}"

    if os.environ.get("BENCH_PROFILE"):
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        for i in range(100):
            server.post("/api/cognitive-stream/thoughts", {"content": text(10**6 + i)})
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
    # What a server process pays once, before the clock: the first request
    # imports the views, serializers and pipeline modules (about a second),
    # the first batch the batch path's.
    for i in range(WARMUP):
        code = server.post("/api/cognitive-stream/thoughts", {"content": text(-1 - i)})
        assert code == 201, code
    code = server.post(
        "/api/cognitive-stream/thoughts",
        {"thoughts": [{"content": text(-100 - i)} for i in range(2)]},
    )
    assert code == 201, code
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(SINGLE):
        code = server.post("/api/cognitive-stream/thoughts", {"content": text(i)})
        assert code == 201, code
    single_rate = SINGLE / (time.perf_counter() - start)
    # On a shared machine the wall clock also counts the neighbours' work.
    single_cpu_rate = SINGLE / (time.process_time() - cpu)

    start = time.perf_counter()
    for b in range(BATCHES):
        body = {
            "thoughts": [
                {"content": text(SINGLE + b * BATCH + i)} for i in range(BATCH)
            ]
        }
        code = server.post("/api/cognitive-stream/thoughts", body)
        assert code == 201, code
    batch_rate = BATCHES * BATCH / (time.perf_counter() - start)

    # Raw insert rate of comparable rows into the same database, same run.
    table = Thought._meta.db_table
    now = timezone.now()
    cols = (
        "agent_id, type, content, content_hash, processed, processed_by, "
        "convert_eligible, eligibility_reason, novelty, broadcast, source, "
        "eval_run_id, metadata, created_at"
    )
    ph = ", ".join(["%s"] * 14)
    rows = [
        (
            agent.pk,
            "reflection",
            text(i),
            f"{i:016x}",
            False,
            "",
            False,
            "no_goal",
            "high",
            True,
            "agent",
            "",
            '{"source": "agent"}',
            now,
        )
        for i in range(RAW_ROWS)
    ]
    start = time.perf_counter()
    with connection.cursor() as cursor:
        for k in range(0, RAW_ROWS, 1000):
            cursor.executemany(
                f"INSERT INTO {table} ({cols}) VALUES ({ph})", rows[k : k + 1000]
            )  # noqa: S608
    raw_rate = RAW_ROWS / (time.perf_counter() - start)
    # The raw rows only measured the database; they are not part of the stream.
    Thought.objects.filter(agent=agent, type="raw-bench").delete()

    # 100,000 stored thoughts: mostly processed, some pending, 1,000 actionable.
    existing = Thought.objects.filter(agent=agent).count()
    bulk = []
    for i in range(STORED - existing):
        eligible = i % 100 == 0
        bulk.append(
            Thought(
                agent=agent,
                type="reflection",
                content=text(i),
                content_hash=f"b{i:015x}",
                processed=i % 20 != 0,
                processed_at=now if i % 20 != 0 else None,
                convert_eligible=eligible and i % 20 == 0,
                eligibility_reason="bench",
                grounding_passed=True if eligible else None,
                goal_key=f"collect:item_{i}" if eligible else None,
                source="agent",
                metadata={},
                created_at=now,
            )
        )
    Thought.objects.bulk_create(bulk, batch_size=2000)
    with connection.cursor() as cursor:
        # What autovacuum does for a live table; fresh bulk rows lack it.
        cursor.execute(
            "VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE"
        )
    timings = []
    if os.environ.get("BENCH_PROFILE"):
        from django.db import reset_queries
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as ctx:
            client.get("/api/cognitive-stream/actionable?limit=10")
        for q in ctx.captured_queries:
            with connection.cursor() as cursor:
                t = time.perf_counter()
                cursor.execute(q["sql"])
                ms = (time.perf_counter() - t) * 1000
                cursor.execute(
                    "EXPLAIN "
                    + ("QUERY PLAN " if connection.vendor == "sqlite" else "")
                    + q["sql"]
                )
                print(f"{ms:7.2f} ms  {q['sql'][:160]}\n          {cursor.fetchall()}")
        reset_queries()
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        for _ in range(50):
            client.get("/api/cognitive-stream/actionable?limit=10")
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    for _ in range(FEED_CALLS):
        t = time.perf_counter()
        r = client.get("/api/cognitive-stream/actionable?limit=10")
        timings.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 200
    p50, p95 = percentile(timings, 0.5), percentile(timings, 0.95)
    stored = Thought.objects.filter(agent=agent).count()

    vendor = connection.vendor
    print(f"database: {vendor}; stored thoughts for /actionable: {stored:,}")
    print(
        f"POST /thoughts single : {single_rate:10.0f} thoughts/s "
        f"(per CPU second of this process: {single_cpu_rate:.0f}/s; target >= 500/s)"
    )
    print(f"POST /thoughts batch  : {batch_rate:10.0f} thoughts/s (100 per request)")
    print(f"raw insert (same db)  : {raw_rate:10.0f} rows/s (executemany)")
    ratio = batch_rate / raw_rate
    print(
        f"ingest / raw insert   : {ratio:10.1%}  target >= 25%  "
        f"{'PASS' if ratio >= 0.25 else 'BELOW'}"
    )
    print(f"GET /actionable p50   : {p50:8.2f} ms")
    print(
        f"GET /actionable p95   : {p95:8.2f} ms  target < 20 ms  "
        f"{'PASS' if p95 < 20 else 'BELOW'}  (median of {statistics.median(timings):.2f})"
    )


if __name__ == "__main__":
    main()
