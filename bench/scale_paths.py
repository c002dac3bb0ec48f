"""The hot paths ``bench/scale.py`` times at each size, through the real code.

Pages and the staff API go through the Django test client with a staff
session; the stream and planning API with an agent's key (the largest agent,
and the smallest for ``recent``). The CI gate snapshot is the function the
stored-baseline gate and ``benchmark_baseline_snapshot`` read the database
with (``latest_completed_run_items``). Each path: warm-up calls (their status
checked), then the median of ``repeats`` calls.
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

WARMUP = 2
FEED = "/api/cognitive-stream/"
FLOOR = "floor: GET /api/whoami (key lookup)"
FLOOR_CALLS = 5
SLOW_S = 2.0
SLOW_BUDGET_S = 30.0
GATE_CAP_S = 60


class Measurer:
    def __init__(self, fixture: Any) -> None:
        self.fixture = fixture
        self.staff = Client()
        self.staff.force_login(fixture.staff)
        self.big = Client(HTTP_AUTHORIZATION=f"Bearer {fixture.big_key}")
        self.small = Client(HTTP_AUTHORIZATION=f"Bearer {fixture.small_key}")
        self.counter = itertools.count()
        self.ack_ids: list[int] = []
        # Paths stopped at their cap at some size: their figure is a floor.
        self.capped: set[str] = set()

    # --- the calls --------------------------------------------------------

    def _get(self, client: Client, url: str) -> Callable[[], Any]:
        return lambda: client.get(url)

    def _post(
        self, client: Client, url: str, body: Callable[[], Any]
    ) -> Callable[[], Any]:
        return lambda: client.post(url, body(), content_type="application/json")

    def _text(self) -> dict[str, str]:
        return {"content": f"Scale probe {next(self.counter)}: a fox at the ridge."}

    def _batch(self) -> dict[str, list[dict[str, str]]]:
        return {"thoughts": [self._text() for _ in range(100)]}

    def _ack(self) -> dict[str, Any]:
        return {"thoughtIds": [self.ack_ids.pop()], "processedBy": "scale"}

    def _gate(self) -> Any:
        """The gate's read, stopped by Postgres after ``GATE_CAP_S`` (its time
        is then the cap: a lower bound, marked in the output)."""
        from django.db import OperationalError, transaction

        from evals.services.benchmark_records import latest_completed_run_items

        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL statement_timeout = {GATE_CAP_S * 1000}")
                items, _invalid = latest_completed_run_items()
        except OperationalError:
            self.capped.add("CI gate snapshot (latest runs)")
            return _Answer(200)
        return _Answer(200 if items else 500)

    def paths(self) -> dict[str, tuple[Callable[[], Any], int, int]]:
        """name -> (call, repeats, expected status)."""
        from evals.models import Run

        base, candidate = (
            Run.objects.filter(pk=pk).values_list("run_id", flat=True).get()
            for pk in self.fixture.generator.compare_run_pks
        )
        compare = f"/evals/compare?base={base}&candidate={candidate}"
        return {
            "GET recent, largest agent": (
                self._get(self.big, f"{FEED}recent?limit=20"),
                21,
                200,
            ),
            "GET recent, smallest agent": (
                self._get(self.small, f"{FEED}recent?limit=20"),
                21,
                200,
            ),
            "GET actionable": (
                self._get(self.big, f"{FEED}actionable?limit=20"),
                21,
                200,
            ),
            "POST ack (1 id)": (self._post(self.big, f"{FEED}ack", self._ack), 15, 200),
            "POST thoughts single": (
                self._post(self.big, f"{FEED}thoughts", self._text),
                21,
                201,
            ),
            "POST thoughts batch of 100": (
                self._post(self.big, f"{FEED}thoughts", self._batch),
                7,
                201,
            ),
            "POST tasks/claim (planning poll)": (
                self._post(self.big, "/api/tasks/claim", lambda: {"executor": "scale"}),
                21,
                200,
            ),
            "run list page": (self._get(self.staff, "/evals/runs/"), 9, 200),
            "run list API": (self._get(self.staff, "/api/evals/runs"), 9, 200),
            "run detail (largest run)": (
                self._get(self.staff, f"/evals/runs/{base}/"),
                5,
                200,
            ),
            "compare, two largest runs": (self._get(self.staff, compare), 5, 200),
            "trends, 1,000 runs": (
                self._get(self.staff, "/evals/trends?benchmark=scale-trend"),
                5,
                200,
            ),
            "CI gate snapshot (latest runs)": (self._gate, 7, 200),
            "gridworld batch list": (self._get(self.staff, "/gridworld/"), 9, 200),
        }

    def _refill_ack_ids(self, count: int) -> None:
        from stream.models import Thought

        self.ack_ids = list(
            Thought.objects.filter(
                agent=self.fixture.big_agent, processed=False, convert_eligible=True
            )
            .order_by("pk")
            .values_list("pk", flat=True)[:count]
        )

    def measure_all(self) -> dict[str, float]:
        """Each path's median ms, and the floor's: the median of the floor
        calls made before each path, so that it samples the machine's load
        all through the level."""
        figures = {}
        floor = self._get(self.big, "/api/whoami")
        floor_times: list[float] = []
        for name, (call, repeats, status) in self.paths().items():
            floor_times.extend(_times(floor, FLOOR_CALLS))
            if name.startswith("POST ack"):
                self._refill_ack_ids(repeats + WARMUP)
            for warm in range(WARMUP):
                start = time.perf_counter()
                answer = call()
                took = time.perf_counter() - start
                if answer.status_code != status:
                    raise SystemExit(
                        f"bench/scale.py: {name} answered {answer.status_code}, "
                        f"not {status}: {getattr(answer, 'content', b'')[:300]!r}"
                    )
                if took > SLOW_S and warm == 0:
                    break  # warm enough: the first call took seconds
            # A path that takes seconds a call gets fewer calls at big sizes.
            if took > SLOW_S:
                repeats = max(1, min(repeats, int(SLOW_BUDGET_S / took)))
            figures[name] = statistics.median(_times(call, repeats))
            mark = " (stopped at the cap)" if name in self.capped else ""
            print(f"  {name:<34} {figures[name]:9.2f} ms{mark}", flush=True)
        figures[FLOOR] = statistics.median(floor_times)
        print(f"  {FLOOR:<34} {figures[FLOOR]:9.2f} ms", flush=True)
        return figures

    def explain_all(self, figures: dict[str, float]) -> dict[str, str]:
        """Each path's query count and its slowest query: time and plan's
        first nodes; a path of more than ``SLOW_BUDGET_S`` a call is not
        called again for it."""
        plans = {}
        for name, (call, _repeats, _status) in self.paths().items():
            if figures.get(name, 0.0) > SLOW_BUDGET_S * 1000:
                plans[name] = "not called again (slower than the budget)"
                continue
            if name.startswith("POST ack"):
                self._refill_ack_ids(1)
            with CaptureQueriesContext(connection) as ctx:
                call()
            queries = [q for q in ctx.captured_queries if q["sql"].startswith("SELECT")]
            if not queries:
                continue
            slowest = max(queries, key=lambda q: float(q["time"]))
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN " + slowest["sql"])
                lines = [row[0] for row in cursor.fetchall()]
            plans[name] = (
                f"{len(ctx.captured_queries)} queries; slowest "
                f"{float(slowest['time']) * 1000:.1f} ms: {plan_nodes(lines)}"
            )
        return plans


def _times(call: Callable[[], Any], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return times


def plan_nodes(lines: list[str]) -> str:
    """The plan's first nodes, without costs: ``Limit > Index Scan using x``."""
    nodes = []
    for line in lines:
        text = line.strip().removeprefix("->").strip()
        if line is lines[0] or line.lstrip().startswith("->"):
            nodes.append(text.split("  (cost=")[0])
    return " > ".join(nodes[:4])


class _Answer:
    def __init__(self, status_code: int) -> None:
        self.status_code = status_code
