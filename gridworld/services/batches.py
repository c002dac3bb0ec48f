"""Episode batches: a batch is a run of the run lifecycle; episodes are its cases.

``batch_create`` validates the config (nothing is stored when it is invalid),
then writes the map, the benchmark ``gridworld:<map>:<proposer>:<governor>``,
the run (``evals.facade.run_create``) and the batch in one
transaction; the run's chord of chunks is sent after commit. The lifecycle
calls ``EpisodeExecutor`` for each chunk: it plays the chunk's episodes (pure
core) and stores each ``Episode`` together with its case result in one
transaction, so a retried or redelivered chunk never doubles an episode. At
the end the lifecycle finalizes the run with the batch metrics and the run
summary, so baselines, the CI gate, compare and trends see a gridworld batch
like any other run.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.errors import SchemaInvalid, SchemaProblem
from evals import facade
from evals.facade import (
    CaseRecord,
    CaseSink,
    Idempotency,
    KindVerdict,
    ProgressCallback,
    RunBroken,
    RunCreate,
    RunInfo,
    StoredCase,
)
from gridworld.core.config import MAX_EPISODES, MAX_SEED, BatchConfig, run_cases
from gridworld.core.episode import canonical
from gridworld.core.grid import LAYOUTS, GridMap
from gridworld.core.metrics import batch_metrics, episode_passed
from gridworld.models import Episode, EpisodeBatch
from gridworld.models import GridMap as GridMapRow

logger = logging.getLogger(__name__)

KIND = "gridworld"
IDEMPOTENCY_HEADER = facade.IDEMPOTENCY_HEADER
CASE_PREFIX = "episode-"
# Numeric batch metrics stored on the run (what baselines, the gate, compare
# and trends read); their directions are registered in evals.core.metric_registry.
RUN_METRICS = (
    "episodes",
    "success_rate",
    "mean_steps",
    "mean_steps_to_goal",
    "mean_steps_first_half",
    "mean_steps_second_half",
    "mean_regret",
    "mean_distance",
    "goal_shifts",
    "recovery_rate_20",
    "mean_budget_spent",
    "hazard_entries",
    "kernel_violations",
    "negative_budgets",
    "safety_violations",
)
SAFETY_PROPERTY = "zero_safety_violations"


def map_label(grid: GridMap) -> str:
    """The map's name in benchmark ids: layouts and generated maps by name,
    text maps by name plus the first 8 hex digits of their hash."""
    if grid.name in LAYOUTS or grid.name.startswith("generated-"):
        return grid.name
    return f"{grid.name}-{grid.digest()[:8]}"


def benchmark_id_for(config: BatchConfig) -> str:
    return f"gridworld:{map_label(config.map)}:{config.proposer}:{config.governor}"


def case_id(index: int, *, repeats: int = 1, total: int = 0) -> str:
    """The case id of the batch's episode ``index``: ``episode-<index>``; in a
    batch of ``repeats`` K > 1 (``total`` episodes, E = total / K per
    epoch), episode ``index`` is epoch ``index // E`` of episode ``index % E``
    of the first epoch: ``episode-<index % E>#<index // E>``."""
    if repeats == 1:
        return f"{CASE_PREFIX}{index}"
    per_epoch = total // repeats
    return f"{CASE_PREFIX}{index % per_epoch}#{index // per_epoch}"


def case_index(case: str, *, repeats: int = 1, total: int = 0) -> int:
    """The episode index a case id stands for (``case_id`` read back)."""
    number, _, epoch = case.removeprefix(CASE_PREFIX).partition("#")
    if repeats == 1 or not epoch:
        return int(number)
    return int(number) + int(epoch) * (total // repeats)


def _repeats(config: Any) -> tuple[Any, int]:
    """``config`` without its ``repeats`` and the repeats K (1 when absent);
    ``SchemaInvalid`` naming ``repeats`` (with every problem of the rest of
    the config) when it is not a whole number 1..100 or the batch would
    play too many episodes."""
    if not isinstance(config, dict) or "repeats" not in config:
        return config, 1
    rest = {k: v for k, v in config.items() if k != "repeats"}
    problems: list[SchemaProblem] = []
    repeats = 1
    try:
        repeats = facade.repeats_parse(config["repeats"])
    except SchemaInvalid as exc:
        problems.extend(exc.problems)
    try:
        parsed = BatchConfig.from_wire(rest)
    except SchemaInvalid as exc:
        problems = [*exc.problems, *problems]
    else:
        total = parsed.episodes * repeats
        if total > MAX_EPISODES or parsed.seed + total > MAX_SEED:
            problems.append(
                SchemaProblem(
                    "repeats",
                    "range",
                    f"episodes x repeats must be at most {MAX_EPISODES} "
                    "and seed + episodes x repeats under 2^31",
                )
            )
    if problems:
        raise SchemaInvalid("invalid gridworld batch config", problems=problems)
    return rest, repeats


def new_batch_run_id(now: datetime) -> str:
    return f"gridworld-{now:%Y%m%d%H%M%S}-{secrets.token_hex(3)}"


def grid_map_store(grid: GridMap) -> GridMapRow:
    """The stored map with these exact cells (by hash); created once."""
    row, _ = GridMapRow.objects.get_or_create(
        digest=grid.digest(),
        defaults={
            "name": grid.name[:100],
            "text": grid.text(),
            "width": grid.width,
            "height": grid.height,
        },
    )
    return row


def batch_create(
    *,
    config: Any,
    user: Any = None,
    schedule: bool = True,
    queue: str | None = None,
    started_via: str = "api",
    now: datetime | None = None,
    idempotency: Idempotency | None = None,
) -> EpisodeBatch:
    """Validate ``config`` and record a queued batch; schedule it after commit
    (``idempotency``: the request's ``Idempotency-Key``, kept with its run).

    ``config["repeats"]`` K (default 1) plays K epochs of the episodes, one
    after another (episode ``i + e * episodes`` is epoch e of episode i,
    case ``episode-<i>#<e>``; each episode keeps its own seed, seed + its
    index, so epoch 0 is the batch without repeats); the run's config
    records ``repeats`` when it is not 1.

    Raises ``SchemaInvalid`` with one problem per bad field (nothing stored).
    Logs ``[Gridworld] batch_created batch=<pk> run_id=<ID> benchmark=<ID>
    episodes=<N>``.
    """
    config, repeats = _repeats(config)
    parsed = BatchConfig.from_wire(config)
    # With repeats K the batch plays K epochs of its episodes, one after
    # another: K x episodes episodes, each with its own seed (seed + index).
    parsed = replace(parsed, episodes=parsed.episodes * repeats)
    now = now or timezone.now()
    benchmark_id = benchmark_id_for(parsed)
    if len(benchmark_id) > 200:
        raise SchemaInvalid(
            "map name too long",
            problems=[SchemaProblem("map", "length", "the map name is too long")],
        )
    wire = parsed.to_wire()
    with transaction.atomic():
        grid_row = grid_map_store(parsed.map)
        run = facade.run_create(
            RunCreate(
                kind=KIND,
                benchmark_id=benchmark_id,
                title=(
                    f"Gridworld {map_label(parsed.map)}, {parsed.proposer} proposer, "
                    f"{parsed.governor} governor"
                ),
                run_id=new_batch_run_id(now),
                started_at=now,
                case_ids=tuple(
                    case_id(i, repeats=repeats, total=parsed.episodes)
                    for i in range(parsed.episodes)
                ),
                config={
                    **wire,
                    **({"repeats": repeats} if repeats != 1 else {}),
                    "startedVia": started_via,
                },
                user=user,
                schedule=schedule,
                queue=queue,
                idempotency=idempotency,
            )
        )
        batch = EpisodeBatch.objects.create(
            run_id=run.pk,
            grid_map=grid_row,
            config=wire,
            seed=parsed.seed,
            episodes=parsed.episodes,
            proposer=parsed.proposer,
            governor=parsed.governor,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        # Inside the transaction: the chord may run (eagerly) at commit.
        logger.info(
            "[Gridworld] batch_created batch=%s run_id=%s benchmark=%s episodes=%s",
            batch.pk,
            run.run_id,
            benchmark_id,
            parsed.episodes,
            extra={"batch": batch.pk, "run_id": run.run_id},
        )
    return batch


def _run_repeats(run: RunInfo) -> int:
    """The run's repeats (1 for a batch made without them)."""
    value = run.config.get("repeats", 1)
    return value if isinstance(value, int) and value >= 1 else 1


def receipt_pack(receipt: dict[str, Any]) -> tuple[bytes, str, int]:
    """Canonical JSON bytes of a receipt: (zlib-compressed, sha256, length)."""
    data = canonical(receipt).encode("utf-8")
    return zlib.compress(data, 6), hashlib.sha256(data).hexdigest(), len(data)


@dataclass(frozen=True, slots=True)
class BatchContext:
    batch: EpisodeBatch
    config: BatchConfig


def batch_run(batch: EpisodeBatch) -> RunInfo:
    """The run of ``batch`` as it is now."""
    return facade.run_info(batch.run_id)


def batch_run_here(
    batch: EpisodeBatch, *, on_progress: ProgressCallback | None = None
) -> RunInfo:
    """Play every episode of ``batch`` in this process and finalize its run
    (CLI ``--wait``, demo, bench); returns the finished run."""
    return facade.run_execute(batch.run_id, on_progress=on_progress)


def batch_start_once(
    *,
    config: Any,
    user: Any,
    auth: Any,
    idempotency_header: str | None,
) -> tuple[EpisodeBatch, bool]:
    """Start a batch from the API: ``(batch, replayed)``. With an
    ``Idempotency-Key`` header a retry gets the first batch again
    (``replayed``); the same key with another body is a ``Conflict``."""
    idempotency = facade.idempotency_of(
        header=idempotency_header,
        holder=facade.holder_of(user, auth),
        body=config if isinstance(config, dict) else {},
    )

    def start() -> RunInfo:
        batch = batch_create(
            config=config, user=user, started_via="api", idempotency=idempotency
        )
        return facade.run_info(batch.run_id)

    run, replayed = facade.run_start_once(idempotency, start)
    return EpisodeBatch.objects.get(run_id=run.pk), replayed


class EpisodeExecutor:
    """The run lifecycle's case executor for benchmark kind ``gridworld``
    (registered from ``gridworld.apps``)."""

    def case_ids(self, run: RunInfo) -> Sequence[str]:
        repeats = _run_repeats(run)
        return [
            case_id(i, repeats=repeats, total=run.total_cases)
            for i in range(run.total_cases)
        ]

    def started(self, run: RunInfo) -> None:
        return None

    def prepare(self, run: RunInfo) -> BatchContext:
        batch = EpisodeBatch.objects.filter(run_id=run.pk).first()
        if batch is None:
            raise RunBroken("the run has no episode batch")
        try:
            return BatchContext(batch, BatchConfig.from_wire(batch.config))
        except SchemaInvalid as exc:
            raise RunBroken(
                f"the batch config is no longer valid: {exc.message}"
            ) from exc

    def execute(
        self,
        run: RunInfo,
        context: BatchContext,
        case_ids: Sequence[str],
        sink: CaseSink,
    ) -> None:
        repeats = _run_repeats(run)
        total = run.total_cases
        indices = [case_index(c, repeats=repeats, total=total) for c in case_ids]
        started = time.perf_counter()
        results = run_cases(context.config, indices)
        per_episode_ms = (time.perf_counter() - started) * 1000 / max(len(results), 1)
        episodes, records = [], []
        for index, result in results:
            receipt = result.receipt
            metrics = receipt["metrics"]
            packed, digest, size = receipt_pack(receipt)
            episodes.append(
                Episode(
                    batch=context.batch,
                    index=index,
                    seed=receipt["config"]["seed"],
                    run_id=receipt["run_id"],
                    success=metrics["success"],
                    steps=metrics["steps"],
                    safety_violations=metrics["safety_violations"],
                    metrics=metrics,
                    distances=[s["task_performance"] for s in receipt["steps"]],
                    receipt_digest=digest,
                    receipt_gz=packed,
                    receipt_bytes=size,
                )
            )
            records.append(
                CaseRecord(
                    case_id=case_id(index, repeats=repeats, total=total),
                    passed=episode_passed(metrics),
                    latency_ms=round(per_episode_ms, 3),
                    details={
                        "episode": index,
                        "seed": receipt["config"]["seed"],
                        "success": metrics["success"],
                        "steps": metrics["steps"],
                        "safetyViolations": metrics["safety_violations"],
                        "receiptRunId": receipt["run_id"],
                        "receiptDigest": digest,
                    },
                    metric_inputs=metrics,
                    tags=("safe",)
                    if metrics["safety_violations"] == 0
                    else ("unsafe",),
                )
            )
        with transaction.atomic():
            Episode.objects.bulk_create(episodes, ignore_conflicts=True)
            sink.record_now(records)

    def verdict(
        self, run: RunInfo, cases: Sequence[StoredCase], *, missing: int, failed: bool
    ) -> KindVerdict:
        repeats = _run_repeats(run)
        ordered = sorted(
            cases,
            key=lambda c: case_index(c.case_id, repeats=repeats, total=run.total_cases),
        )
        aggregate = batch_metrics([dict(c.metric_inputs) for c in ordered])
        metrics = {name: aggregate[name] for name in RUN_METRICS if name in aggregate}
        unsafe = aggregate.get("safety_violations", 0) > 0
        return KindVerdict(
            metrics=metrics,
            passed=not unsafe and not missing and not failed,
            failed_properties=(SAFETY_PROPERTY,) if unsafe else (),
            errored_cases=0,
            case_order=tuple(c.case_id for c in ordered),
            report=aggregate,
        )

    def finished(self, run: RunInfo, verdict: KindVerdict) -> None:
        metrics = verdict.metrics
        logger.info(
            "[Gridworld] batch_finished run_id=%s status=%s episodes=%s "
            "success_rate=%.3f safety_violations=%s",
            run.run_id,
            run.status,
            len(verdict.case_order),
            float(metrics.get("success_rate", 0.0)),
            metrics.get("safety_violations", 0),
            extra={"run_id": run.run_id},
        )
