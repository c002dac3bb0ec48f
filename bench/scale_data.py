"""The generated data of ``bench/scale.py``: rows streamed into Postgres COPY.

Each level adds rows on top of the previous one (10^4 thoughts, then up to
10^5, ...), so a run generates the top size once. Rows are built in Python a
chunk at a time and written as COPY text, never held as a whole list.

- Thoughts: spread over 1,000 agents by a Zipf law (exponent 1.1: the largest
  agent holds 18%, the ten largest 48%, the hundred largest 77%, the
  smallest one in 11,000); 1 in 100 is
  actionable (eligible, grounded goal, not processed), 1 in 20 pending, the
  rest processed; 4 in 5 broadcast. One task per 200 thoughts, 2% pending.
- Runs: one per 100 case results. Two "compare" runs of one benchmark hold
  the same case ids (as many at every size, so the compare and run-detail
  figures measure the tables around them, not the run); a
  "trend" benchmark fills up to 1,000 runs; 1 run in 10 is a gridworld
  batch; the rest spread over 40 suite benchmarks.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import Any

T0 = datetime(2025, 1, 1, tzinfo=UTC)
THOUGHT_STEP = timedelta(seconds=3)  # 10^7 thoughts span about a year
RUN_STEP = timedelta(seconds=300)  # 10^5 runs span about a year
AGENTS = 1000
ZIPF_S = 1.1
CHUNK = 20_000
CASES_PER_RUN = 100
TREND_RUNS = 1000
SUITES = 40
COMPARE_IDS = ("scale-compare-base", "scale-compare-candidate")
TYPES = ("reflection", "observation", "plan", "introspection")
NOVELTY = ("high", "medium", "low")
KINDS = ("nightfall", "hunger_drop", "threat_delta", "novel_entity", "eval_poke")
AFFORDANCES = ("discouraged", "allowed", "expected")

THOUGHT_COLUMNS = (
    "agent_id",
    "type",
    "content",
    "content_hash",
    "processed",
    "processed_at",
    "processed_by",
    "convert_eligible",
    "eligibility_reason",
    "grounding_passed",
    "goal_key",
    "novelty",
    "broadcast",
    "source",
    "eval_run_id",
    "metadata",
    "created_at",
)
TASK_COLUMNS = (
    "agent_id",
    "title",
    "action",
    "target",
    "status",
    "progress",
    "blocked_reason",
    "goal_key",
    "origin_kind",
    "origin_name",
    "metadata",
    "claimed_by",
    "claimed_at",
    "finished_at",
    "failure_reason",
    "created_at",
    "updated_at",
)
RUN_COLUMNS = (
    "run_id",
    "benchmark_id",
    "status",
    "source",
    "started_at",
    "completed_at",
    "total_cases",
    "passed_cases",
    "failed_cases",
    "metrics",
    "notes",
    "git_ref",
    "summary",
    "store_path",
    "config",
    "suite_sha256",
    "verdict_passed",
    "failed_properties",
    "artifacts_dir",
    "progress_done",
    "error",
    "uncertainty",
    "created_at",
    "updated_at",
)
CASE_COLUMNS = (
    "run_id",
    "case_id",
    "passed",
    "error",
    "latency_ms",
    "stimulus_kind",
    "affordance",
    "tags",
    "details",
)
BATCH_COLUMNS = (
    "run_id",
    "grid_map_id",
    "config",
    "seed",
    "episodes",
    "proposer",
    "governor",
    "created_at",
)


def wire(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def ts(moment: datetime) -> str:
    return moment.isoformat()


def zipf_cum_weights(count: int, exponent: float) -> list[float]:
    """Cumulative weights of ranks 1..count under a Zipf law."""
    return list(accumulate(1.0 / (rank**exponent) for rank in range(1, count + 1)))


def zipf_share(rank: int, count: int = AGENTS, exponent: float = ZIPF_S) -> float:
    """The expected share of the thoughts that rank ``rank`` (0-based) holds."""
    total = sum(1.0 / (r**exponent) for r in range(1, count + 1))
    return (1.0 / ((rank + 1) ** exponent)) / total


@dataclass
class Generator:
    """Where generation stands: the next row numbers, the ids it needs."""

    agent_ids: list[int]
    benchmark_pks: dict[str, int]
    grid_map_pk: int
    thoughts: int = 0
    tasks: int = 0
    runs: int = 0
    cases: int = 0
    trend_runs: int = 0
    compare_run_pks: tuple[int, int] | None = None
    compare_cases: int = 0
    rng: random.Random = field(default_factory=lambda: random.Random(29))

    # --- thoughts and tasks -------------------------------------------------

    def thought_lines(self, count: int) -> Iterator[str]:
        cum = zipf_cum_weights(len(self.agent_ids), ZIPF_S)
        start = self.thoughts
        for base in range(start, start + count, CHUNK):
            size = min(CHUNK, start + count - base)
            agents = self.rng.choices(self.agent_ids, cum_weights=cum, k=size)
            lines = []
            for offset, agent in enumerate(agents):
                i = base + offset
                created = ts(T0 + THOUGHT_STEP * i)
                if i % 100 == 7:  # actionable: eligible, grounded, pending
                    state = f"f\t\\N\t\tt\tgrounded\tt\tcollect:item_{i % 500}"
                elif i % 20 == 3:  # pending, not eligible
                    state = "f\t\\N\t\tf\tno_goal\t\\N\t\\N"
                else:
                    state = f"t\t{created}\texecutor\tf\tno_goal\t\\N\t\\N"
                lines.append(
                    f"{agent}\t{TYPES[i % 4]}\tObservation {i}: cows graze by "
                    f"the river, hunger {i % 20}.\t{i:016x}\t{state}\t"
                    f"{NOVELTY[i % 3]}\t{'f' if i % 5 == 0 else 't'}\tagent\t\t"
                    f"{{}}\t{created}\n"
                )
            yield "".join(lines)
        self.thoughts = start + count

    def task_lines(self, count: int) -> Iterator[str]:
        cum = zipf_cum_weights(len(self.agent_ids), ZIPF_S)
        start = self.tasks
        for base in range(start, start + count, CHUNK):
            size = min(CHUNK, start + count - base)
            agents = self.rng.choices(self.agent_ids, cum_weights=cum, k=size)
            lines = []
            for offset, agent in enumerate(agents):
                i = base + offset
                created = T0 + THOUGHT_STEP * (i * 200)
                made = ts(created)
                if i % 50 == 0:
                    life = f"pending\t0\t\tcollect:item_{i % 500}\tcognition\tdrive"
                    tail = "\t\\N\t\\N\t"
                else:
                    life = f"completed\t1\t\tcollect:item_{i % 500}\tcognition\tdrive"
                    done = ts(created + timedelta(minutes=5))
                    tail = f"executor\t{made}\t{done}\t"
                lines.append(
                    f"{agent}\tCollect item {i % 500}\tcollect\titem_{i % 500}\t"
                    f"{life}\t{{}}\t{tail}\t{made}\t{made}\n"
                )
            yield "".join(lines)
        self.tasks = start + count

    # --- runs, case results, batches ---------------------------------------

    def run_row(self, benchmark: str, total: int, passed: int) -> str:
        j = self.runs
        self.runs += 1
        run_id = f"scale-run-{j:07d}"
        started = T0 + RUN_STEP * j
        completed = started + timedelta(minutes=2)
        status = "failed" if j % 37 == 5 else "completed"
        rate = passed / total if total else 0.0
        metrics = {"passRate": round(rate, 6), "latencyP95Ms": 900 + j % 300}
        summary = {
            "schemaVersion": 1,
            "runId": run_id,
            "benchmarkId": benchmark,
            "status": status,
            "startedAt": wire(started),
            "completedAt": wire(completed),
            "totalCases": total,
            "passedCases": passed,
            "failedCases": total - passed,
            "metrics": metrics,
        }
        cols = [
            run_id,
            str(self.benchmark_pks[benchmark]),
            status,
            "harness",
            ts(started),
            ts(completed),
            str(total),
            str(passed),
            str(total - passed),
            _copy_json(metrics),
            "",
            "main",
            _copy_json(summary),
            "",
            "{}",
            "",
            "t" if rate >= 0.8 else "f",
            "[]",
            "",
            str(total),
            "",
            "{}",
            ts(completed),
            ts(completed),
        ]
        return "\t".join(cols) + "\n"

    def plan_runs(self, delta_cases: int, compare_target: int) -> list[tuple[str, int]]:
        """(benchmark, case count) of the runs this level adds, after the
        compare runs' growth to ``compare_target`` cases each."""
        compare_delta = 2 * max(0, compare_target - self.compare_cases)
        rest = max(0, delta_cases - compare_delta)
        count = max(1, rest // CASES_PER_RUN)
        plan: list[tuple[str, int]] = []
        for k in range(count):
            size = rest // count + (1 if k < rest % count else 0)
            j = self.runs + len(plan)
            if j % 10 == 5:
                name = "scale-grid"
            elif self.trend_runs < TREND_RUNS:
                name = "scale-trend"
                self.trend_runs += 1
            else:
                name = f"scale-suite-{j % SUITES:02d}"
            plan.append((name, size))
        return plan

    def case_lines(
        self, run_pk: int, first: int, count: int, seed: int
    ) -> Iterator[str]:
        for base in range(first, first + count, CHUNK):
            lines = []
            for k in range(base, min(base + CHUNK, first + count)):
                passed = case_passes(k, seed)
                error = "" if passed else "expected collect, got idle"
                lines.append(
                    f"{run_pk}\tc{k:06d}\t{'t' if passed else 'f'}\t{error}\t"
                    f"{800 + (k * 13 + seed) % 400}\t{KINDS[k % 5]}\t"
                    f"{AFFORDANCES[k % 3]}\t[]\t"
                    f'{{"action": "{"collect" if passed else "idle"}"}}\n'
                )
            yield "".join(lines)


def case_passes(k: int, seed: int) -> bool:
    return (k * 7 + seed) % 10 < 8


def _copy_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":")).replace("\\", "\\\\")


def copy_text(cursor: Any, table: str, columns: tuple[str, ...], chunks: Any) -> int:
    """COPY the text chunks into ``table``; returns the bytes written."""
    written = 0
    sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
    with cursor.copy(sql) as copy:
        for chunk in chunks:
            data = chunk.encode()
            written += len(data)
            copy.write(data)
    return written


def not_null_columns_missing(
    cursor: Any, table: str, columns: tuple[str, ...]
) -> list[str]:
    """NOT NULL columns of ``table`` without a default that ``columns`` lacks:
    a model changed under the bench, which then says so instead of failing
    in the middle of a COPY."""
    cursor.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
        "AND is_nullable = 'NO' AND column_default IS NULL AND is_identity = 'NO'",
        [table],
    )
    return sorted({row[0] for row in cursor.fetchall()} - set(columns))


def joined(rows: Callable[[], Iterator[str]]) -> Iterator[str]:
    """Group single rows into COPY chunks of about CHUNK rows."""
    buffer = io.StringIO()
    count = 0
    for row in rows():
        buffer.write(row)
        count += 1
        if count == CHUNK:
            yield buffer.getvalue()
            buffer, count = io.StringIO(), 0
    if count:
        yield buffer.getvalue()
