"""Load: locust, headless, against gunicorn on Postgres + Redis.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/evalsite \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/8 \\
    .venv/bin/python bench/load.py [--users 24] [--seconds 30] [--web-workers 3]

Everything runs on 127.0.0.1 only and is bounded: a fresh database
``evalsite_load`` beside the configured one, gunicorn and one Celery worker
started by this script, a fixed number of simulated users for a fixed time.
The users: agents posting percepts and thoughts (one key each), planners
polling the actionable feed and acking it, CI posting run summaries, shadow
records and eval runs, and people opening compare pages. Prints sustained
requests/s, p50/p95/p99 per endpoint, the errors, and whether the work queued
by the eval runs drained afterwards (every run finished, the broker queue
empty). Exits non-zero on any error or a queue that did not drain. Without a
Postgres and Redis on 127.0.0.1 it says so and exits 0 (``make bench``).
Give it a Redis database of its own: the drain check reads its ``celery``
queue.
"""

from __future__ import annotations

import sys

# locust patches the standard library with gevent on import: first.
try:
    from locust import HttpUser, between, events, task  # isort: skip
    from locust.env import Environment  # isort: skip
except ImportError:
    print("bench/load.py skipped: locust is not installed (pip install -e '.[bench]')")
    sys.exit(0)

import argparse
import itertools
import json
import os
import random
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import gevent
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evals.examples import example_run_summary, example_shadow_record  # noqa: E402

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
LOAD_DB = "evalsite_load"
SETUP = """
import json
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from evals.demo_benchmarks import load_demo
from stream.services.agents import agent_create

users = get_user_model().objects
person = users.create_user("load-person", password="load-person-pw", is_staff=True)
session = SessionStore()
session["_auth_user_id"] = str(person.pk)
session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
session["_auth_user_hash"] = person.get_session_auth_hash()
session.create()
load_demo(owner=person)
agents = [
    agent_create(name=f"load-agent-{n}", owner=person).api_key for n in range(%(agents)d)
]
ci = [
    agent_create(
        name=f"load-ci-{n}", owner=person, scopes=["benchmarks:write"]
    ).api_key
    for n in range(%(ci)d)
]
print(json.dumps({"session": session.session_key, "agents": agents, "ci": ci}))
"""
FACTS = {
    "facts": {
        "bot": {
            "position": {"x": 0, "y": 64, "z": 0},
            "health": 20,
            "hunger": 20,
            "inventorySummary": [{"item": "oak_log", "count": 3}],
            "timeOfDay": "day",
        },
        "world": {
            "biome": "forest",
            "nearbyEntities": [{"kind": "cow", "count": 2, "distanceMin": 5}],
        },
    }
}
THOUGHTS = (
    "Logs are stacked by the cows. [GOAL: collect oak_log 3]",
    "The forest is quiet; two cows graze nearby.",
    "Nothing needs doing right now.",
)
CREDENTIALS: dict[str, Any] = {}
COUNTER = itertools.count()
# Forwarded as TLS by the "proxy": production settings, no redirect.
HTTPS = {"X-Forwarded-Proto": "https"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def key_headers(key: str) -> dict[str, str]:
    return {**HTTPS, "Authorization": f"Bearer {key}"}


class Agent(HttpUser):
    """An agent streaming what it perceives and thinks."""

    weight = 4
    wait_time = between(0.05, 0.3)

    def on_start(self) -> None:
        self.headers = key_headers(CREDENTIALS["agents"].pop())

    @task(2)
    def percept(self) -> None:
        self.client.post(
            "/api/cognitive-stream/percepts",
            json=FACTS,
            headers=self.headers,
            name="POST percepts",
        )

    @task(3)
    def thought(self) -> None:
        self.client.post(
            "/api/cognitive-stream/thoughts",
            json={"content": random.choice(THOUGHTS)},
            headers=self.headers,
            name="POST thoughts",
        )


class Planner(HttpUser):
    """A planner polling its agent's actionable feed and acking it."""

    weight = 2
    wait_time = between(0.2, 0.5)

    def on_start(self) -> None:
        self.headers = key_headers(CREDENTIALS["agents"].pop())
        # What grounds the goals below: the logs and cows are in the frame.
        self.client.post(
            "/api/cognitive-stream/percepts",
            json=FACTS,
            headers=self.headers,
            name="POST percepts",
        )

    @task
    def poll_and_ack(self) -> None:
        # Something to act on: the planner's agent thinks of a grounded goal
        # (a new one each time, or deduplication would drop it).
        self.client.post(
            "/api/cognitive-stream/thoughts",
            json={
                "content": f"Logs are by the cows. [GOAL: collect oak_log "
                f"{next(COUNTER) % 50 + 1}]"
            },
            headers=self.headers,
            name="POST thoughts",
        )
        feed = self.client.get(
            "/api/cognitive-stream/actionable?limit=20",
            headers=self.headers,
            name="GET actionable",
        )
        if feed.status_code != 200:
            return
        ids = [t["id"] for t in feed.json().get("thoughts", [])]
        if ids:
            self.client.post(
                "/api/cognitive-stream/ack",
                json={"thoughtIds": ids},
                headers=self.headers,
                name="POST ack",
            )


class CI(HttpUser):
    """CI recording run summaries and shadows, and starting eval runs."""

    weight = 1
    wait_time = between(0.3, 1.0)

    def on_start(self) -> None:
        self.headers = key_headers(CREDENTIALS["ci"].pop())

    @task(3)
    def run_summary(self) -> None:
        n = next(COUNTER)
        self.client.post(
            "/api/benchmarks/runs",
            json=example_run_summary(f"load-run-{n}", hour=n % 24),
            headers=self.headers,
            name="POST benchmark runs",
        )

    @task(3)
    def shadow(self) -> None:
        self.client.post(
            "/api/benchmarks/shadow",
            json=example_shadow_record(f"load{next(COUNTER):012x}"),
            headers=self.headers,
            name="POST shadow",
        )

    @task(1)
    def eval_run(self) -> None:
        self.client.post(
            "/api/evals/runs",
            json={
                "suite": "smoke",
                "profile": "balanced",
                "mode": "thought_only",
                "model": "scripted",
            },
            headers=self.headers,
            name="POST eval runs",
        )


class Person(HttpUser):
    """Someone comparing the candidate run with the baseline run."""

    weight = 1
    wait_time = between(0.5, 1.5)

    def on_start(self) -> None:
        self.headers = {**HTTPS, "Cookie": f"sessionid={CREDENTIALS['session']}"}

    @task
    def compare(self) -> None:
        self.client.get(
            "/evals/compare?base=ama-memory-main-001&candidate=ama-memory-pr-142",
            headers=self.headers,
            name="GET compare page",
        )


def run(command: list[str], env: dict[str, str], **kwargs: Any) -> str:
    result = subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        **kwargs,
    )
    if result.returncode != 0:
        sys.exit(f"{' '.join(command[:3])} failed:\n{result.stderr[-3000:]}")
    return result.stdout


def services(args: argparse.Namespace) -> tuple[str, str] | None:
    database, broker = (
        os.environ.get("DATABASE_URL", ""),
        os.environ.get("CELERY_BROKER_URL", ""),
    )
    if not database.startswith("postgres") or not broker.startswith("redis://"):
        return None
    for url in (database, broker):
        if urlparse(url).hostname not in LOOPBACK:
            sys.exit(f"refused: {urlparse(url).hostname} is not 127.0.0.1")
    return database, broker


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=24)
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument("--drain-seconds", type=int, default=180)
    args = parser.parse_args()
    if not 1 <= args.users <= 200 or not 5 <= args.seconds <= 600:
        sys.exit("--users must be 1..200 and --seconds 5..600")
    found = services(args)
    if found is None:
        print(
            "bench/load.py skipped: set DATABASE_URL=postgres://...@127.0.0.1 and "
            "CELERY_BROKER_URL=redis://127.0.0.1:6379/<n>"
        )
        return 0
    database, broker = found
    base, _, _ = database.rpartition("/")
    import psycopg

    with psycopg.connect(f"{base}/postgres", autocommit=True) as pg:
        pg.execute(f"DROP DATABASE IF EXISTS {LOAD_DB} WITH (FORCE)")
        pg.execute(f"CREATE DATABASE {LOAD_DB}")
    queue_redis = redis.Redis.from_url(broker)
    var = tempfile.mkdtemp(prefix="evalsite-load-")
    env = {
        **os.environ,
        "DATABASE_URL": f"{base}/{LOAD_DB}",
        "CELERY_BROKER_URL": broker,
        "CACHE_URL": broker,
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": "load-" + "q8W2e7R1t6Y3" * 5,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "EVALSITE_VAR_DIR": var,
        "EVALS_ARTIFACTS_DIR": f"{var}/artifacts",
        "EVAL_HARNESS_ENABLED": "true",
        "EVAL_SHADOW_MODE_ENABLED": "true",
        "BENCHMARK_BASELINE_SNAPSHOTS_ENABLED": "true",
        "BENCHMARK_DELTA_REPORTER_ENABLED": "true",
        "LOG_LEVEL": "WARNING",
        "KEEPALIVE_ENABLED": "false",
    }
    python = sys.executable
    run([python, "manage.py", "migrate", "--noinput"], env)
    run([python, "manage.py", "collectstatic", "--noinput"], env)
    agents = args.users + 1
    ci = max(1, args.users // 4) + 1
    setup = SETUP % {"agents": agents, "ci": ci}
    CREDENTIALS.update(
        json.loads(
            run([python, "manage.py", "shell", "-c", setup], env)
            .strip()
            .splitlines()[-1]
        )
    )
    # One CI key stays out of the load: the drain check asks with it.
    CREDENTIALS["drain"] = CREDENTIALS["ci"].pop()
    port = free_port()
    logs = Path(var)
    web = subprocess.Popen(
        [
            python,
            "-m",
            "gunicorn",
            "evalsite.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            str(args.web_workers),
            "--access-logfile",
            "-",
        ],
        cwd=ROOT,
        env=env,
        stdout=(logs / "web.log").open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    worker = subprocess.Popen(
        [
            python,
            "-m",
            "celery",
            "-A",
            "evalsite",
            "worker",
            "-c",
            "2",
            "-l",
            "WARNING",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        stdout=(logs / "worker.log").open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    host = f"http://127.0.0.1:{port}"
    try:
        return measure(args, host, queue_redis, logs)
    finally:
        for process in (web, worker):
            os.killpg(process.pid, signal.SIGTERM)
        for process in (web, worker):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def wait_ready(host: str) -> None:
    import requests

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{host}/healthz", headers=HTTPS, timeout=2).ok:
                return
        except requests.RequestException:
            pass
        time.sleep(0.5)
    sys.exit("gunicorn did not become healthy in 60 s")


def measure(args: argparse.Namespace, host: str, queue_redis: Any, logs: Path) -> int:
    import requests

    wait_ready(host)
    env = Environment(
        user_classes=[Agent, Planner, CI, Person], host=host, events=events
    )
    runner = env.create_local_runner()
    runner.start(args.users, spawn_rate=max(1, args.users // 2))
    gevent.sleep(args.seconds)
    runner.quit()
    stats = env.stats
    total = stats.total
    elapsed = max(total.last_request_timestamp - total.start_time, 1e-9)
    print(
        f"load: {args.users} users for {args.seconds} s against gunicorn "
        f"({args.web_workers} workers) on Postgres + Redis, 127.0.0.1"
    )
    print(
        f"{'endpoint':<22} {'requests':>8} {'errors':>6} {'p50 ms':>7} "
        f"{'p95 ms':>7} {'p99 ms':>7}"
    )
    for entry in sorted(stats.entries.values(), key=lambda e: e.name):
        print(
            f"{entry.name:<22} {entry.num_requests:>8} {entry.num_failures:>6} "
            f"{entry.get_response_time_percentile(0.5):>7.0f} "
            f"{entry.get_response_time_percentile(0.95):>7.0f} "
            f"{entry.get_response_time_percentile(0.99):>7.0f}"
        )
    print(
        f"sustained: {total.num_requests / elapsed:.1f} requests/s, "
        f"{total.num_requests} requests, {total.num_failures} errors"
    )
    for error in stats.errors.values():
        print(
            f"  error: {error.method} {error.name}: {error.error} x{error.occurrences}"
        )
    # Drain: every eval run finished, nothing left in the broker's queue.
    ci_key = key_headers(CREDENTIALS["drain"])
    started = time.monotonic()
    pending = -1
    while time.monotonic() - started < args.drain_seconds:
        active = 0
        for status in ("queued", "running"):
            answer = requests.get(
                f"{host}/api/evals/runs?status={status}&limit=1",
                headers=ci_key,
                timeout=10,
            )
            active += answer.json().get("count", 0) if answer.ok else 1
        pending = active + int(queue_redis.llen("celery"))
        if pending == 0:
            break
        time.sleep(1)
    drained = pending == 0
    print(
        f"queued work drained: {'yes' if drained else 'no'} in "
        f"{time.monotonic() - started:.1f} s after the load stopped"
    )
    if not drained:
        print(f"  still pending: {pending}; logs in {logs}")
    return 0 if drained and total.num_failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
