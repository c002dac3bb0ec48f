"""POST /thoughts through gunicorn, next to a trivial WSGI answer in the same run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/evalsite \\
    CACHE_URL=redis://127.0.0.1:6379/13 \\
    .venv/bin/python bench/stream.py [--seconds 8] [--senders 6] [--workers 3]
        [--base-tree DIR] [--rounds 2]  # another checkout, same run, fair order

Serves a trivial WSGI answer (the floor) and evalsite with gunicorn's sync
workers; ``--senders`` threads, each its own agent with a stream at the
deployed cap, post for ``--seconds``. Prints answers/s, p50, p99 and the CPU
an answer cost the workers and the database of single POST /thoughts and
of batches of 100, and GET /actionable's p50/p95 with 100,000 thoughts.
``--base-tree DIR`` (``git archive <rev> | tar -x -C DIR``) serves another
checkout under the same load. Each tree in each round starts on a fresh
database (tables emptied, VACUUM, ANALYZE); the order alternates (round 1
base first, round 2 this tree first); each round's ratios (this / base)
print, then their median. Targets, on this tree's median: single POST >=
400 answers/s with 3 workers, /actionable p95 < 20 ms; a miss is named and
exits 1. ``CACHE_URL`` (Redis) holds the throttle's counters (it refuses
nothing); the servers log at INFO into a file.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TMP = tempfile.mkdtemp(prefix="evalsite-bench-")
os.environ.setdefault("EVALSITE_VAR_DIR", TMP)
os.environ["DJANGO_DEBUG"] = "false"  # production code paths
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "k" * 50)
os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver,127.0.0.1"
os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "false"
os.environ["API_KEY_THROTTLE_RATE"] = "10000000/minute"
if os.environ.get("DATABASE_URL", "").startswith("postgres"):
    import psycopg

    # A throwaway one named after the configured one; other benches keep theirs.
    base, _, name = os.environ["DATABASE_URL"].rpartition("/")
    bench_db = f"{name.split('?')[0]}_bench"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as pg:
        pg.execute(f'DROP DATABASE IF EXISTS "{bench_db}"')
        pg.execute(f'CREATE DATABASE "{bench_db}"')
    os.environ["DATABASE_URL"] = f"{base}/{bench_db}"
else:  # A throwaway SQLite file, never the configured one: each tree empties it.
    os.environ.pop("DATABASE_URL", None)
    os.environ["EVALSITE_VAR_DIR"] = TMP
os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
os.environ["LOG_LEVEL"] = "WARNING"  # this process; the servers log at INFO

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from bench.gunicorn_load import children, cpu_seconds, free_port  # noqa: E402

SINGLE_TARGET = 400  # answers/s, 3 workers
FEED_TARGET_MS = 20
BATCH = 100
STORED = 100_000
FEED_CALLS = 300
PATH = "/api/cognitive-stream/thoughts"
FLOOR_APP = """def application(environ, start_response):
    headers = [("Content-Type", "application/json"), ("Content-Length", "2")]
    start_response("200 OK", headers)
    return [b"{}"]
"""
FACTS = {
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


def text(i: int) -> str:
    goal = " [GOAL: collect oak_log 2]" if i % 10 == 0 else ""
    return f"Observation {i}: two cows graze at the forest edge.{goal}"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(-(-p * len(ordered) // 1)) - 1)]


def request_bytes(port: int, key: str | None, body: bytes) -> bytes:
    head = (
        f"POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n"
    )
    if key:
        head += f"Authorization: Bearer {key}\r\n"
    return head.encode() + b"\r\n" + body


def send(port: int, payload: bytes) -> int:
    """One request on a new connection (gunicorn's sync workers close each);
    the status code."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(payload)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return int(b"".join(chunks)[9:12])


class Server:
    """gunicorn serving ``app`` from ``tree``; stopped on exit."""

    def __init__(self, app: str, tree: Path, workers: int, log: Path) -> None:
        self.port = free_port()
        env = dict(os.environ, LOG_LEVEL="INFO", PYTHONPATH=str(tree))
        self.log = log.open("ab")
        command = [str(Path(sys.executable).parent / "gunicorn"), app]
        command += ["--chdir", str(tree), "--bind", f"127.0.0.1:{self.port}"]
        command += ["--workers", str(workers), "--worker-class", "sync"]
        command += ["--backlog", "256", "--log-level", "warning"]
        self.process = subprocess.Popen(
            command, env=env, stdout=self.log, stderr=self.log, start_new_session=True
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.2)
        self.stop()
        raise SystemExit(f"gunicorn did not start; its log: {log}")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)
        self.log.close()


def server_pids(server: Server) -> list[int]:
    """The gunicorn workers and this database's server processes (on
    PostgreSQL, one per kept connection)."""
    pids = children(server.process.pid)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            )
            pids += [row[0] for row in cursor.fetchall()]
    return pids


def load(
    port: int,
    keys: list[str | None],
    seconds: float,
    body: object,
    server: Server | None = None,
) -> tuple[float, list[float], int, float]:
    """``len(keys)`` senders, one per key, posting for ``seconds``:
    (answers/s, latencies in ms, answers other than the expected one, CPU
    ms per answer of the server's workers and database processes)."""
    pids = server_pids(server) if server is not None else []
    cpu_before = cpu_seconds(pids)
    latencies: list[list[float]] = [[] for _ in keys]
    errors = [0]
    stop = time.perf_counter() + seconds
    counter = iter(range(10**9))

    def sender(n: int, key: str | None) -> None:
        while time.perf_counter() < stop:
            i = next(counter)
            document = body(i) if callable(body) else body
            payload = request_bytes(port, key, json.dumps(document).encode())
            t = time.perf_counter()
            code = send(port, payload)
            latencies[n].append((time.perf_counter() - t) * 1000)
            if code not in (200, 201):
                errors[0] += 1

    start = time.perf_counter()
    threads = [threading.Thread(target=sender, args=(n, k)) for n, k in enumerate(keys)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    flat = [x for lat in latencies for x in lat]
    cpu_ms = (cpu_seconds(pids) - cpu_before) * 1000 / max(len(flat), 1)
    return len(flat) / elapsed, flat, errors[0], cpu_ms


def measure(
    tree: Path, label: str, args: argparse.Namespace, keys: list[str], floor: float
) -> dict[str, float]:
    log = Path(TMP) / f"gunicorn-{label.replace(' ', '-').replace(',', '')}.log"
    server = Server("evalsite.wsgi:application", tree, args.workers, log)
    try:
        # Each worker imports the views and the pipeline on its first
        # request (about a second): before the clock.
        load(server.port, keys, 3, lambda i: {"content": text(-i)})
        single, lat, errors, cpu = load(
            server.port, keys, args.seconds, lambda i: {"content": text(i)}, server
        )
        batch_rate, blat, berrors, bcpu = load(
            server.port,
            keys[: max(1, len(keys) // 2)],
            args.seconds,
            lambda i: {
                "thoughts": [
                    {"content": text(10**7 + i * BATCH + j)} for j in range(BATCH)
                ]
            },
            server,
        )
    finally:
        server.stop()
    if errors or berrors:
        raise SystemExit(
            f"{label}: {errors + berrors} answers were not 201; log: {log}"
        )
    figures = {
        "single": single,
        "p50": percentile(lat, 0.5),
        "p99": percentile(lat, 0.99),
        "batch": batch_rate,
        "batch_p50": percentile(blat, 0.5),
        "cpu": cpu,
        "batch_cpu": bcpu,
    }
    print(
        f"[{label}] POST /thoughts single: {single:7.0f} answers/s "
        f"({single / floor:.1%} of the floor), p50 {figures['p50']:6.1f} ms, "
        f"p99 {figures['p99']:6.1f} ms; CPU {cpu:.2f} ms an answer"
    )
    print(
        f"[{label}] POST /thoughts batch of {BATCH}: {batch_rate:6.1f} answers/s = "
        f"{batch_rate * BATCH:7.0f} thoughts/s, p50 {figures['batch_p50']:6.1f} ms; "
        f"CPU {bcpu:.1f} ms an answer"
    )
    return figures


def prepare(senders: int) -> tuple[list[str], object]:
    """``senders`` agents with a percept each and a stream at the cap."""
    from stream.models import Thought
    from stream.services.agents import agent_create
    from stream.services.counters import queue_held_forget

    user = get_user_model().objects.create_user("bench", password="x")  # noqa: S106
    keys, agents = [], []
    now = timezone.now()
    for n in range(senders):
        created = agent_create(name=f"bench-{n}", owner=user)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {created.api_key}")
        response = client.post(
            "/api/cognitive-stream/percepts", {"facts": FACTS}, format="json"
        )
        assert response.status_code == 201, response.content
        keys.append(created.api_key)
        agents.append(created.agent)
        Thought.objects.bulk_create(
            Thought(
                agent=created.agent,
                type="reflection",
                content=text(-(10**6) - i),
                content_hash=f"f{n:03d}{i:012x}",
                eligibility_reason="no_goal",
                source="agent",
                metadata={},
                created_at=now,
            )
            for i in range(settings.STREAM_QUEUE_HARD_CAP - 1)
        )
    queue_held_forget()  # loaded, not published
    return keys, agents[0]


def feed_latency(agent: object, api_key_client: APIClient) -> tuple[float, float]:
    """p50/p95 of GET /actionable?limit=10 with ``STORED`` thoughts stored."""
    from stream.models import Thought

    now = timezone.now()
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
    tidy_database()  # what autovacuum does for a live table; bulk rows lack it
    timings = []
    for _ in range(FEED_CALLS):
        t = time.perf_counter()
        r = api_key_client.get("/api/cognitive-stream/actionable?limit=10")
        timings.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 200
    return percentile(timings, 0.5), percentile(timings, 0.95)


def fresh_database() -> None:
    """Empties every table and has the database reclaim the space and take
    fresh statistics, so that a tree does not pay for another's churn."""
    call_command("flush", interactive=False, verbosity=0)
    tidy_database()


def tidy_database() -> None:
    """VACUUM and ANALYZE: space reclaimed, the planner's statistics fresh."""
    with connection.cursor() as cursor:
        postgres = connection.vendor == "postgresql"
        for statement in ["VACUUM ANALYZE"] if postgres else ["VACUUM", "ANALYZE"]:
            cursor.execute(statement)


def ratios(this: dict[str, float], base: dict[str, float]) -> dict[str, float]:
    """How many times better this tree did than the base, figure by figure
    (more answers a second, less time and CPU)."""
    more = ("single", "batch")
    return {
        k: this[k] / base[k] if k in more else base[k] / this[k]
        for k in ("single", "p50", "p99", "cpu", "batch")
    }


def ratio_line(r: dict[str, float]) -> str:
    return (
        f"single {r['single']:.2f}x answers/s, p50 {r['p50']:.2f}x, "
        f"p99 {r['p99']:.2f}x faster, CPU an answer {r['cpu']:.2f}x less; "
        f"batches {r['batch']:.2f}x"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--senders", type=int, default=6)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--base-tree", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=2, help="each on fresh data")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    call_command("migrate", verbosity=0)
    print(
        f"database: {connection.vendor}; {args.workers} gunicorn workers, "
        f"{args.senders} senders ({args.senders // 2 or 1} for batches), "
        f"{args.seconds:g} s a phase, {args.rounds} round(s); cache: "
        f"{'redis' if os.environ.get('CACHE_URL') else 'per-process memory'}; "
        f"queue cap {settings.STREAM_QUEUE_HARD_CAP} (every stream at it); "
        f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs"
    )
    floor_dir = Path(TMP) / "floor"
    floor_dir.mkdir()
    (floor_dir / "floorapp.py").write_text(FLOOR_APP)
    floor_server = Server(
        "floorapp:application", floor_dir, args.workers, Path(TMP) / "floor.log"
    )
    try:
        load(floor_server.port, [None] * args.senders, 1, {})
        floor, floor_lat, _, floor_cpu = load(
            floor_server.port, [None] * args.senders, args.seconds, {}, floor_server
        )
    finally:
        floor_server.stop()
    print(
        f"[floor] trivial WSGI answer: {floor:7.0f} answers/s, "
        f"p50 {percentile(floor_lat, 0.5):6.1f} ms, "
        f"p99 {percentile(floor_lat, 0.99):6.1f} ms; CPU {floor_cpu:.2f} ms an answer"
    )
    trees = [("this tree", ROOT)]
    if args.base_tree is not None:
        trees.append(("base tree", args.base_tree.resolve()))
    runs: dict[str, list[dict[str, float]]] = {label: [] for label, _ in trees}
    per_round = []
    for n in range(1, args.rounds + 1):
        for label, tree in trees[::-1] if n % 2 else trees:
            fresh_database()
            keys, _ = prepare(args.senders)
            runs[label].append(measure(tree, f"{label}, round {n}", args, keys, floor))
        if args.base_tree is not None:
            per_round.append(ratios(runs["this tree"][-1], runs["base tree"][-1]))
            print(f"round {n}, this tree / base tree: {ratio_line(per_round[-1])}")
    if per_round:
        median = {k: statistics.median(r[k] for r in per_round) for k in per_round[0]}
        print(f"median of {len(per_round)} rounds, this tree / base tree: ", end="")
        print(ratio_line(median))
    single = statistics.median(f["single"] for f in runs["this tree"])
    fresh_database()
    keys, first_agent = prepare(args.senders)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {keys[0]}")
    p50, p95 = feed_latency(first_agent, client)
    print(f"GET /actionable (100,000 thoughts): p50 {p50:.2f} ms, p95 {p95:.2f} ms")
    missed = []
    if args.workers == 3 and single < SINGLE_TARGET:
        missed.append(f"single POST /thoughts {single:.0f} answers/s < {SINGLE_TARGET}")
    if p95 >= FEED_TARGET_MS:
        missed.append(f"GET /actionable p95 {p95:.1f} ms >= {FEED_TARGET_MS} ms")
    for miss in missed:
        print(f"missed: {miss}")
    print("targets: " + ("all met" if not missed else f"{len(missed)} missed"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
