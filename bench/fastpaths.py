"""Each hand-made fast path against its plain reference, in the same run.

    .venv/bin/python bench/fastpaths.py            # embedded SQLite (a temp file)
    DATABASE_URL=postgres://... .venv/bin/python bench/fastpaths.py

For every fast path the figure it serves, measured with it and with the
plain implementation it stands in for (the reference), rounds alternating
so that load on the machine falls on both sides alike; the figure is the
median of the rounds:

- the publish path's plain-SQL reads (``stream.selectors``: publish_reads,
  recent_content_hashes, queue_holds_more_than) against the ORM queries
  their docstrings name (``BENCH_READS=name,...`` swaps only those named);
- the one-statement thought insert (``stream.services.thought_store``)
  against a transaction of ``Model.save``/``bulk_create`` and the counters'
  update;
- the plain-shape check of a posted thought (``stream.core.thought_input``)
  against ``ThoughtInputSerializer``;

each as POST /api/cognitive-stream/thoughts through the WSGI handler,
single thoughts and batches of 100 (thoughts/s), with the deployed queue
cap (retention keeps the agent's stream at its steady size); then

- records made without the caller/thread/process lookups
  (``evalsite.logging.configure``) against plain ``dictConfig``: log
  lines/s through the text formatter;
- orjson where it writes like ``json`` (``core.json_bytes``) against the
  standard library: governed gridworld steps/s (every receipt is hashed
  through it) and scenario artifacts written per second.

``--only NAME`` runs one of: selectors, store, input, logging, json.

All five fast paths fell short of 1.5x on their figure and were removed
after this was measured; the swaps below hold the plain implementations,
which are now the production ones. To measure again, run this file in a
worktree of the commit before their removal (``git worktree add DIR
213cb4f``, copy this file to DIR/bench/, run it there): on the current tree
both sides of each comparison are the same code.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TMP = tempfile.mkdtemp(prefix="evalsite-bench-")
os.environ.setdefault("EVALSITE_VAR_DIR", TMP)
os.environ["DJANGO_DEBUG"] = "false"
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "k" * 50)
os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "false"
if os.environ.get("DATABASE_URL", "").startswith("postgres"):
    import psycopg

    base, _, name = os.environ["DATABASE_URL"].rpartition("/")
    bench_db = f"{name.split('?')[0]}_fastpaths"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as pg:
        pg.execute(f'DROP DATABASE IF EXISTS "{bench_db}"')
        pg.execute(f'CREATE DATABASE "{bench_db}"')
    os.environ["DATABASE_URL"] = f"{base}/{bench_db}"
os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
os.environ["LOG_LEVEL"] = "WARNING"
os.environ["STREAM_DEDUP_WINDOW"] = "20"
os.environ["API_KEY_THROTTLE_RATE"] = "100000000/minute"

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

ROUNDS = 5
# BENCH_CLOCK=cpu: rates per CPU second of this process (less moved by other
# load on the machine; on PostgreSQL it leaves out the server's time).
CLOCK = (
    time.process_time if os.environ.get("BENCH_CLOCK") == "cpu" else time.perf_counter
)
SINGLE = 100
BATCHES = 3
BATCH = 100


class Wsgi:
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


@contextmanager
def patched(*swaps: tuple[Any, str, Any]) -> Iterator[None]:
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in swaps]
    for owner, name, value in swaps:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


# --- the references: what each fast path stands in for ----------------------


def orm_swaps() -> list[tuple[Any, str, Any]]:
    from stream.models import AgencyCounters, Thought, WorldSnapshot
    from stream.services import retention, thoughts

    def publish_reads(
        *, agent: Any, counter: str, facts: bool, hashes_limit: int, exclude_type: str
    ) -> tuple[Any, int | None, set[str]]:
        document = None
        if facts:
            document = (
                WorldSnapshot.objects.filter(agent=agent)
                .order_by("-received_at", "-pk")
                .values_list("facts", flat=True)
                .first()
            )
        value = (
            AgencyCounters.objects.filter(agent=agent)
            .values_list(counter, flat=True)
            .first()
        )
        hashes = (
            recent_content_hashes(
                agent=agent, limit=hashes_limit, exclude_type=exclude_type
            )
            if hashes_limit > 0
            else set()
        )
        return document, value, hashes

    def recent_content_hashes(*, agent: Any, limit: int, exclude_type: str) -> set[str]:
        return set(
            Thought.objects.filter(agent=agent)
            .exclude(type=exclude_type)
            .order_by("-created_at", "-pk")
            .values_list("content_hash", flat=True)[:limit]
        )

    def queue_holds_more_than(*, agent: Any, count: int) -> bool:
        return bool(
            Thought.objects.filter(agent=agent)
            .order_by()
            .values_list("pk")[count : count + 1]
            .exists()
        )

    swaps = [
        (thoughts, "publish_reads", publish_reads),
        (thoughts, "recent_content_hashes", recent_content_hashes),
        (retention, "queue_holds_more_than", queue_holds_more_than),
    ]
    # BENCH_READS=publish_reads,... swaps only the reads named.
    named = os.environ.get("BENCH_READS")
    return [s for s in swaps if not named or s[1] in named.split(",")]


def store_swaps() -> list[tuple[Any, str, Any]]:
    from django.db import transaction

    from stream.models import Thought
    from stream.services import thoughts
    from stream.services.counters import counters_add_stored

    def thoughts_store(*, agent: Any, thoughts: Any, increments: Any) -> int | None:
        with transaction.atomic():
            if len(thoughts) > 1:
                Thought.objects.bulk_create(thoughts)
            elif thoughts:
                thoughts[0].save()
            return counters_add_stored(agent=agent, stored=len(thoughts), **increments)

    return [(thoughts, "thoughts_store", thoughts_store)]


def input_swaps() -> list[tuple[Any, str, Any]]:
    from stream.api import cognitive_stream

    return [
        (cognitive_stream, "plain_thought_input", lambda data: None),
        (cognitive_stream, "plain_thought_batch", lambda data, max_batch: None),
    ]


# --- the figures -------------------------------------------------------------


def compare(
    label: str,
    unit: str,
    measure: Callable[[], float],
    reference: list[tuple[Any, str, Any]],
) -> tuple[float, float]:
    absent = [
        f"{owner.__name__}.{name}"
        for owner, name, _ in reference
        if not hasattr(owner, name)
    ]
    if absent:
        # The fast path was removed (the module docstring): nothing to swap.
        print(
            f"{label:<44} not measured: {', '.join(absent)} is not in this tree "
            "(run this file in a worktree of the commit before the removal)",
            flush=True,
        )
        return math.nan, math.nan
    measure()  # warm both sides before the clock
    with patched(*reference):
        measure()
    fast, plain = [], []
    for _ in range(ROUNDS):
        fast.append(measure())
        with patched(*reference):
            plain.append(measure())
    with_, without = statistics.median(fast), statistics.median(plain)
    print(
        f"{label:<44} with {with_:10,.0f}  without {without:10,.0f} {unit:<12}"
        f" gain {with_ / without:5.2f}x",
        flush=True,
    )
    return with_, without


def stream_figures(only: str | None) -> None:
    from stream.services.agents import agent_create

    user = get_user_model().objects.create_user("bench", password="x")  # noqa: S106
    created = agent_create(name=f"bench-{int(time.time())}", owner=user)
    server = Wsgi(created.api_key)
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
    assert server.post("/api/cognitive-stream/percepts", {"facts": facts}) == 201
    counter = iter(range(10**9))

    def text() -> str:
        i = next(counter)
        goal = " [GOAL: collect oak_log 2]" if i % 10 == 0 else ""
        return f"Observation {i}: two cows graze at the forest edge.{goal}"

    def single() -> float:
        start = CLOCK()
        for _ in range(SINGLE):
            code = server.post("/api/cognitive-stream/thoughts", {"content": text()})
            assert code == 201, code
        return SINGLE / (CLOCK() - start)

    def batch() -> float:
        start = CLOCK()
        for _ in range(BATCHES):
            body = {"thoughts": [{"content": text()} for _ in range(BATCH)]}
            code = server.post("/api/cognitive-stream/thoughts", body)
            assert code == 201, code
        return BATCHES * BATCH / (CLOCK() - start)

    vendor = connection.vendor
    paths = {
        "selectors": ("plain-SQL reads", orm_swaps),
        "store": ("one-statement insert", store_swaps),
        "input": ("plain-shape input check", input_swaps),
    }
    for key, (what, swaps) in paths.items():
        if only not in (None, key):
            continue
        compare(f"{vendor} {what}: POST single", "thoughts/s", single, swaps())
        compare(f"{vendor} {what}: POST batch", "thoughts/s", batch, swaps())
    if only is None:
        every = orm_swaps() + store_swaps() + input_swaps()
        compare(f"{vendor} all three: POST single", "thoughts/s", single, every)
        compare(f"{vendor} all three: POST batch", "thoughts/s", batch, every)


def logging_figure() -> None:
    from evalsite.logging import build_logging, configure

    config = build_logging(level="INFO", fmt="text", repeat_window_s=0)
    logger = logging.getLogger("stream.services.thoughts")
    lines = 20_000

    def run() -> float:
        handler = logging.getLogger().handlers[0]
        assert isinstance(handler, logging.StreamHandler)
        handler.setStream(io.StringIO())
        start = time.perf_counter()
        for i in range(lines):
            logger.info(
                "[Thought] published id=%s type=%s eligible=%s",
                i,
                "reflection",
                False,
                extra={"agent": "bench-agent"},
            )
        return lines / (time.perf_counter() - start)

    def fast() -> float:
        configure(config)
        return run()

    def plain() -> float:
        logging.config.dictConfig(config)
        return run()

    plain()
    fast()
    fast_runs, plain_runs = [], []
    for _ in range(ROUNDS):
        fast_runs.append(fast())
        plain_runs.append(plain())
    with_, without = statistics.median(fast_runs), statistics.median(plain_runs)
    print(
        f"{'text log lines through the console handler':<44} with {with_:10,.0f}"
        f"  without {without:10,.0f} {'lines/s':<12} gain {with_ / without:5.2f}x",
        flush=True,
    )
    logging.config.dictConfig(build_logging(level="WARNING", fmt="text"))


def json_figures() -> None:
    from gridworld.core import episode
    from gridworld.core.config import BatchConfig, run_cases
    from gridworld.core.grid import standard_layout

    config = BatchConfig(map=standard_layout("hazard"), episodes=40, seed=1)

    def steps() -> float:
        start = time.process_time()
        results = run_cases(config, list(range(config.episodes)))
        total = sum(int(r.receipt["metrics"]["steps"]) for _, r in results)
        return total / (time.process_time() - start)

    def stdlib_sorted(value: Any) -> str:
        return json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )

    compare(
        "orjson receipts: governed gridworld steps",
        "steps/s",
        steps,
        [(episode, "sorted_compact_json_text", stdlib_sorted)],
    )

    from evals.examples import example_run_summary, example_scenario

    # About the size and shape of a scenario artifact: the scenario, its
    # frame and a run summary's figures.
    artifact = {"scenario": example_scenario("s1"), "run": example_run_summary("r1")}
    out = Path(TMP) / "artifacts"
    out.mkdir(exist_ok=True)
    from evals.core import files

    def artifacts() -> float:
        count = 300
        start = time.perf_counter()
        for i in range(count):
            files.write_json_atomic(out / f"{i}.json", artifact, durable=False)
        return count / (time.perf_counter() - start)

    def stdlib_indented(document: Any) -> bytes:
        text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False)
        return (text + "\n").encode("utf-8")

    compare(
        "orjson artifacts: scenario artifacts written",
        "files/s",
        artifacts,
        [(files, "indented_json_bytes", stdlib_indented)],
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--only", choices=["selectors", "store", "input", "logging", "json"]
    )
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    clock = "CPU" if CLOCK is time.process_time else "wall"
    print(
        f"database: {connection.vendor}; median of {ROUNDS} alternating rounds; "
        f"{clock} clock; queue cap {settings.STREAM_QUEUE_HARD_CAP}"
    )
    if args.only in (None, "selectors", "store", "input"):
        stream_figures(args.only)
    if args.only in (None, "logging"):
        logging_figure()
    if args.only in (None, "json"):
        json_figures()


if __name__ == "__main__":
    main()
