"""Use cases of the scenario eval harness (issue 6; seed 000 EV-*, PA-*).

A run replays a JSONL suite through the same thinking pipeline the live agent
uses (``stream.core.pipeline.run_pipeline``) and, in ``end_to_end`` mode,
through the same stream and planning services, on an isolated per-run agent.

What this module writes: the suite's ``Benchmark`` (kind ``suite``) and a
``SuiteVersion`` per suite sha256, one ``Run``, one ``CaseResult`` per
scenario, and the result bundle (EV-C4) under ``EVALS_ARTIFACTS_DIR``.
What it schedules: after commit, a Celery chord of ``evals.run_scenarios``
chunks (``EVALS_CHUNK_SIZE`` scenarios each) joined by ``evals.finalize_run``;
``eval_run_execute`` runs the same functions in-process instead.
What it logs: the seed's ``[Eval]`` and ``[Grounding]`` lines, verbatim.

Idempotency: a scenario is skipped when its ``CaseResult`` exists (unique per
run and case id), so a redelivered chunk after a worker restart only runs
what is missing; finalizing is a conditional update on ``completed_at``, so
a second finalize is a no-op. Every chunk re-reads the suite file and
refuses to go on when its sha256 is no longer the run's.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from core.canonical import sha256_hex
from core.errors import CoreError, NotFound, SchemaInvalid, SchemaProblem
from evals.core.bundles import (
    ModelConfig,
    bundle_paths,
    new_run_id,
    scenario_artifact,
    scenario_artifact_path,
    summary_artifact,
    write_json_atomic,
)
from evals.core.metrics import (
    compute_metrics,
    evaluate_scenario,
    evaluate_verdict,
    format_metric,
    metrics_to_wire,
)
from evals.core.suite_types import (
    ActionAffordance,
    EvalVerdict,
    LoadedSuite,
    Scenario,
    ScenarioOutcome,
    StimulusKind,
    SuiteInvalid,
    VerdictProperty,
)
from evals.core.suites import parse_suite
from evals.models import Benchmark, CaseResult, Run, SuiteVersion
from stream.core.adapters import DEFAULT_SAMPLER as DEFAULT_SAMPLER
from stream.core.adapters import SAMPLERS, ModelAdapter
from stream.core.frames import facts_from_wire, render_frame
from stream.core.pipeline import run_pipeline
from stream.core.types import (
    GoalFailReason,
    PipelineResult,
    PromptProfile,
    RenderedFrame,
    SamplerProfile,
    SituationFacts,
)
from stream.core.wire import goal_to_wire, sampler_to_wire
from stream.services.adapters import (
    MODEL_CHOICES,
    model_adapter,
    model_id,
    sampler_profile,
)

logger = logging.getLogger(__name__)

PROFILES: tuple[str, ...] = tuple(p.value for p in PromptProfile)
MODES: tuple[str, ...] = ("thought_only", "end_to_end")
MODELS: tuple[str, ...] = MODEL_CHOICES
SAMPLER_NAMES: tuple[str, ...] = tuple(sorted(SAMPLERS))
DEFAULT_SEED = 0
SUITE_SUFFIX = ".jsonl"
SCRIPT_SUFFIX = ".script.jsonl"
ACTIVE_STATUSES = (Run.Status.QUEUED, Run.Status.RUNNING)
# Results are committed in batches (one transaction per batch, not per
# scenario); a worker that dies redoes at most one batch.
RECORD_BATCH = 25
RECORD_INTERVAL_S = 0.5

ProgressCallback = Callable[[int, int], None]


# --- suites ------------------------------------------------------------------


def default_script_path(suite_path: Path) -> Path:
    """``<suite>.script.jsonl`` beside the suite: the scripted model's default."""
    return suite_path.with_name(f"{suite_path.stem}{SCRIPT_SUFFIX}")


def suites_dir() -> Path:
    return Path(settings.EVALS_SUITES_DIR)


def suite_resolve(name: str, *, field: str = "suite") -> Path:
    """The file a client names: a shipped suite (``smoke`` or ``smoke.jsonl``)
    or a relative path under ``EVALS_SUITES_DIR``.

    Refuses (``SchemaInvalid`` on ``field``) anything that resolves outside
    that directory, so a web client can never make the server read an
    arbitrary file, and a name that does not exist.
    """
    root = suites_dir().resolve()
    raw = name.strip()
    candidates = [raw] if raw.endswith(SUITE_SUFFIX) else [raw + SUITE_SUFFIX, raw]
    for candidate in candidates:
        path = (root / candidate).resolve()
        if not path.is_relative_to(root):
            raise SchemaInvalid(
                f"{field} must name a file under the suites directory",
                problems=[
                    SchemaProblem(
                        field,
                        "outside_suites_dir",
                        f"{name!r} is outside the suites directory",
                    )
                ],
            )
        if path.is_file():
            return path
    raise SchemaInvalid(
        f"no such {field}: {name!r}",
        problems=[
            SchemaProblem(field, "not_found", f"no {field} named {name!r} in {root}")
        ],
    )


@dataclass(frozen=True, slots=True)
class SuiteFile:
    """A suite file as it is on disk now, for the suites list and the API."""

    suite_id: str
    name: str
    path: Path
    line_count: int
    suite_sha256: str
    is_valid: bool
    invalid_lines: int
    has_script: bool


def suite_files() -> list[SuiteFile]:
    """Every ``*.jsonl`` suite in ``EVALS_SUITES_DIR`` (scripts left out), as
    read now; an invalid file is listed with its invalid-line count."""
    root = suites_dir()
    if not root.is_dir():
        return []
    files: list[SuiteFile] = []
    for path in sorted(root.glob(f"*{SUITE_SUFFIX}")):
        if path.name.endswith(SCRIPT_SUFFIX) or not path.is_file():
            continue
        try:
            suite = suite_read(path)
        except SuiteInvalid as exc:
            files.append(
                SuiteFile(
                    suite_id=path.stem,
                    name=path.name,
                    path=path,
                    line_count=exc.line_count,
                    suite_sha256=exc.suite_sha256,
                    is_valid=False,
                    invalid_lines=len(exc.invalid_lines),
                    has_script=default_script_path(path).is_file(),
                )
            )
            continue
        files.append(
            SuiteFile(
                suite_id=suite.suite_id,
                name=path.name,
                path=path,
                line_count=suite.line_count,
                suite_sha256=suite.suite_sha256,
                is_valid=True,
                invalid_lines=0,
                has_script=default_script_path(path).is_file(),
            )
        )
    return files


def suite_benchmarks() -> QuerySet[Benchmark]:
    """Suites that have been run, with their versions prefetched."""
    return Benchmark.objects.filter(kind=Benchmark.Kind.SUITE).prefetch_related(
        "suite_versions"
    )


def suite_get(*, suite_id: str) -> Benchmark:
    benchmark = suite_benchmarks().filter(benchmark_id=suite_id).first()
    if benchmark is None:
        raise NotFound(f"no suite {suite_id!r} has been run yet", code="not_found")
    return benchmark


# Parsed suites by (path, sha256 of the bytes). The file is read on every
# call (EV-C1); only the parse of bytes already seen is reused, so an edited
# file is always parsed and validated afresh. Without it every chunk of a
# large run would re-validate the whole suite.
_SUITE_CACHE: dict[tuple[str, str], LoadedSuite] = {}
_SUITE_CACHE_SIZE = 8


def suite_read(path: Path) -> LoadedSuite:
    """``load_suite``'s contract (``NotFound``, ``SuiteInvalid``), reading the
    bytes every time and reusing the parse of identical bytes."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
        raise NotFound(
            f"suite file not found: {path}",
            code="suite_not_found",
            details={"path": str(path)},
        ) from exc
    key = (str(path), sha256_hex(data))
    suite = _SUITE_CACHE.get(key)
    if suite is None:
        suite = parse_suite(data, path=path)
        if len(_SUITE_CACHE) >= _SUITE_CACHE_SIZE:
            _SUITE_CACHE.pop(next(iter(_SUITE_CACHE)))
        _SUITE_CACHE[key] = suite
    return suite


def _load_suite_logged(path: Path) -> LoadedSuite:
    """``suite_read`` with EV-C1/EV-C2's log lines (every invalid line)."""
    try:
        suite = suite_read(path)
    except SuiteInvalid as exc:
        for invalid in exc.invalid_lines:
            logger.error(
                "[Eval] suite_invalid path=%s line=%s errors=%s",
                path,
                invalid.line,
                invalid.errors_json(),
                extra={"suite_path": str(path), "line": invalid.line},
            )
        raise
    logger.info(
        "[Eval] suite_loaded path=%s line_count=%s suite_sha256=%s",
        path,
        suite.line_count,
        suite.suite_sha256,
        extra={"suite_path": str(path), "suite_sha256": suite.suite_sha256},
    )
    return suite


# --- creating a run ----------------------------------------------------------


def _choice(value: str, choices: Sequence[str], field: str) -> str:
    if value not in choices:
        raise SchemaInvalid(
            f"unknown {field} {value!r}; one of {', '.join(choices)}",
            problems=[
                SchemaProblem(
                    field,
                    "invalid_choice",
                    f"{value!r} is not one of {', '.join(choices)}",
                )
            ],
        )
    return value


def _owner_of_eval_stream(user: Any) -> Any:
    if user is not None and getattr(user, "is_authenticated", False):
        return user
    owner = (
        get_user_model()
        .objects.filter(is_superuser=True, is_active=True)
        .order_by("pk")
        .first()
    )
    if owner is None:
        raise CoreError(
            "end_to_end mode needs a user to own the run's stream: pass one or "
            "create a superuser",
            code="invalid",
        )
    return owner


def eval_agent_name(run_id: str) -> str:
    """The isolated per-run agent of an end_to_end run."""
    return f"eval-{run_id.lower()}"


def eval_run_create(
    *,
    suite_path: Path | str,
    profile: str,
    mode: str,
    model: str,
    script_path: Path | str | None = None,
    sampler: str = DEFAULT_SAMPLER,
    seed: int = DEFAULT_SEED,
    user: Any = None,
    schedule: bool = True,
    queue: str | None = None,
    started_via: str = "api",
    extra_config: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> Run:
    """Validate everything, then record a queued run and schedule it.

    Validation comes first and stores nothing when it fails: an unknown
    profile, mode, sampler or model raises ``SchemaInvalid`` naming the
    field; a model that cannot be built (scripted without a readable script,
    openai without ``OPENAI_MODEL``) raises its ``CoreError``; an invalid
    suite logs ``[Eval] suite_invalid ...`` for EVERY invalid line and raises
    ``SuiteInvalid`` (EV-C2). A valid suite logs ``[Eval] suite_loaded ...``
    (EV-C1: the file is read on every run).

    Then, in one transaction: the suite's ``Benchmark`` (benchmark_id = file
    stem) is upserted, a ``SuiteVersion`` row is recorded for this sha256,
    the ``Run`` is created ``queued`` with its config, and, in end_to_end
    mode, the run's inactive agent ``eval-<run id>``. With ``schedule`` the
    chord of chunk tasks is sent after commit (routed to ``queue`` when
    given); without it the caller runs ``eval_run_execute``.
    """
    _choice(profile, PROFILES, "profile")
    _choice(mode, MODES, "mode")
    _choice(model, MODELS, "model")
    _choice(sampler, SAMPLER_NAMES, "sampler")
    sampler_params = sampler_profile(sampler)
    suite_file = Path(suite_path).resolve()
    script: Path | None = None
    if model == "scripted":
        script = (
            Path(script_path).resolve()
            if script_path
            else default_script_path(suite_file)
        )
    # Builds the adapter once now so a bad script or endpoint config is a
    # clear error before anything is stored.
    _, script_sha256 = _adapter_for(model, script)
    suite = _load_suite_logged(suite_file)
    now = now or timezone.now()
    run_id = new_run_id(now, random.SystemRandom())
    paths = bundle_paths(
        Path(settings.EVALS_ARTIFACTS_DIR), suite.suite_id, profile, run_id
    )
    config: dict[str, Any] = {
        "profile": profile,
        "mode": mode,
        "model": model,
        "modelId": _model_id(model, script),
        "sampler": sampler,
        "samplerParams": sampler_to_wire(sampler_params),
        "seed": seed,
        "script": str(script) if script else None,
        "scriptSha256": script_sha256,
        "suitePath": str(suite_file),
        "suiteLineCount": suite.line_count,
        "chunkSize": settings.EVALS_CHUNK_SIZE,
        "startedVia": started_via,
        **(extra_config or {}),
    }
    stream_owner = _owner_of_eval_stream(user) if mode == "end_to_end" else None
    with transaction.atomic():
        benchmark = _suite_benchmark_upsert(suite)
        SuiteVersion.objects.get_or_create(
            benchmark=benchmark,
            suite_sha256=suite.suite_sha256,
            defaults={"line_count": suite.line_count},
        )
        if stream_owner is not None:
            config["agent"] = _eval_agent_create(run_id, owner=stream_owner)
            config["agentOwnerId"] = stream_owner.pk
        run = Run.objects.create(
            run_id=run_id,
            benchmark=benchmark,
            status=Run.Status.QUEUED,
            source=Run.Source.HARNESS,
            started_at=now,
            total_cases=suite.line_count,
            config=config,
            suite_sha256=suite.suite_sha256,
            artifacts_dir=str(paths.run_dir),
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        run.summary = _run_summary(run, status="running", metrics={}, cases=[])
        run.save(update_fields=["summary"])
        if schedule:
            eval_run_enqueue(run=run, queue=queue, suite=suite)
    logger.info(
        "[Eval] run_created run_id=%s suite=%s profile=%s mode=%s model=%s "
        "sampler=%s seed=%s scenarios=%s",
        run_id,
        suite.suite_id,
        profile,
        mode,
        config["modelId"],
        sampler,
        seed,
        suite.line_count,
        extra={"run_id": run_id},
    )
    return run


def _model_id(model: str, script: Path | None) -> str:
    if model == "scripted" and script is not None:
        return f"scripted:{script.name}"
    return model_id(model)


# Scripted adapters by (path, sha256 of the script bytes), for the same
# reason as _SUITE_CACHE: a chunk re-reads the script, never re-parses it.
_ADAPTER_CACHE: dict[tuple[str, str], ModelAdapter] = {}


def _adapter_for(model: str, script: Path | None) -> tuple[ModelAdapter, str | None]:
    """The model's adapter and, for the scripted model, its script's sha256."""
    if model != "scripted" or script is None:
        return model_adapter(model, script_path=script), None
    try:
        script_sha256 = sha256_hex(script.read_bytes())
    except OSError:
        # model_adapter reports an unreadable script with a clear error.
        return model_adapter(model, script_path=script), None
    key = (str(script), script_sha256)
    adapter = _ADAPTER_CACHE.get(key)
    if adapter is None:
        adapter = model_adapter(model, script_path=script)
        if len(_ADAPTER_CACHE) >= _SUITE_CACHE_SIZE:
            _ADAPTER_CACHE.pop(next(iter(_ADAPTER_CACHE)))
        _ADAPTER_CACHE[key] = adapter
    return adapter, script_sha256


def _suite_benchmark_upsert(suite: LoadedSuite) -> Benchmark:
    benchmark, created = Benchmark.objects.get_or_create(
        benchmark_id=suite.suite_id,
        defaults={
            "kind": Benchmark.Kind.SUITE,
            "title": suite.suite_id,
            "suite_path": str(suite.path),
            "case_count": suite.line_count,
        },
    )
    if benchmark.kind != Benchmark.Kind.SUITE:
        raise CoreError(
            f"benchmark id {suite.suite_id!r} is already taken by a "
            f"{benchmark.get_kind_display()}; rename the suite file",
            code="conflict",
        )
    if not created:
        Benchmark.objects.filter(pk=benchmark.pk).update(
            suite_path=str(suite.path),
            case_count=suite.line_count,
            updated_at=timezone.now(),
        )
        benchmark.suite_path = str(suite.path)
        benchmark.case_count = suite.line_count
    return benchmark


def _eval_agent_create(run_id: str, *, owner: Any) -> str:
    # Inactive: no keep-alive ticks, no API authentication; only this run
    # publishes into it and polls it.
    from stream.services.agents import agent_create

    name = eval_agent_name(run_id)
    agent_create(name=name, owner=owner, is_active=False)
    return name


def scenario_chunks(ids: Sequence[str], size: int) -> list[list[str]]:
    """``ids`` in order, cut into lists of at most ``size``."""
    return [list(ids[start : start + size]) for start in range(0, len(ids), size)]


def eval_run_enqueue(
    *, run: Run, queue: str | None = None, suite: LoadedSuite | None = None
) -> None:
    """Send the run's chord after the current transaction commits.

    One ``evals.run_scenarios`` task per ``EVALS_CHUNK_SIZE`` scenarios (in
    suite order), joined by ``evals.finalize_run``; routed to ``queue`` when
    given. Enqueueing a half-done run again is safe: finished scenarios are
    skipped, so this also resumes a run whose worker went away.
    """
    if suite is None:
        suite = suite_read(Path(run.config["suitePath"]))
    chunks = scenario_chunks(
        [s.scenario_id for s in suite.scenarios], settings.EVALS_CHUNK_SIZE
    )
    transaction.on_commit(lambda: _schedule(run.pk, chunks, queue=queue))


def _schedule(run_pk: int, chunks: list[list[str]], *, queue: str | None) -> None:
    from celery import chord

    from evals.tasks import finalize_run as finalize_run_task
    from evals.tasks import run_scenarios as run_scenarios_task

    options: dict[str, Any] = {"queue": queue} if queue else {}
    # The callback takes only the run id (immutable signature); the members'
    # results, which the join needs, are on at the task level.
    header = [run_scenarios_task.si(run_pk, ids).set(**options) for ids in chunks]
    chord(header)(finalize_run_task.si(run_pk).set(**options))


# --- executing ---------------------------------------------------------------


class RunBroken(CoreError):
    """The run cannot go on (suite changed or gone, model unbuildable)."""

    code = "run_broken"


@dataclass(frozen=True, slots=True)
class RunContext:
    """What every scenario of a run shares, rebuilt by each chunk."""

    suite: LoadedSuite
    profile: PromptProfile
    mode: str
    adapter: ModelAdapter
    sampler: SamplerProfile
    model: ModelConfig
    seed: int
    artifacts_dir: Path


def _run_context(run: Run) -> RunContext:
    config = run.config
    suite_path = Path(config["suitePath"])
    try:
        suite = suite_read(suite_path)
    except (NotFound, SuiteInvalid) as exc:
        raise RunBroken(
            f"suite {suite_path} can no longer be read: {exc.message}",
            code="suite_unreadable",
        ) from exc
    if suite.suite_sha256 != run.suite_sha256:
        raise RunBroken(
            f"suite {suite_path} changed after the run started "
            f"(sha256 {run.suite_sha256} -> {suite.suite_sha256}); start a new run",
            code="suite_changed",
        )
    script = config.get("script")
    try:
        adapter, script_sha256 = _adapter_for(
            config["model"], Path(script) if script else None
        )
    except CoreError as exc:
        raise RunBroken(
            f"model {config['model']} can no longer be built: {exc.message}",
            code="model_unavailable",
        ) from exc
    if script_sha256 != config.get("scriptSha256"):
        # Outputs of one run come from one version of the script.
        raise RunBroken(
            f"script {script} changed after the run started "
            f"(sha256 {config.get('scriptSha256')} -> {script_sha256}); "
            "start a new run",
            code="script_changed",
        )
    sampler = SAMPLERS[config["sampler"]]
    return RunContext(
        suite=suite,
        profile=PromptProfile(config["profile"]),
        mode=config["mode"],
        adapter=adapter,
        sampler=sampler,
        model=ModelConfig(
            model_id=config["modelId"],
            adapter=config["model"],
            sampler=config["sampler"],
            seed=config["seed"],
            sampler_params=config.get("samplerParams"),
        ),
        seed=config["seed"],
        artifacts_dir=Path(run.artifacts_dir),
    )


def _mark_running(run: Run) -> None:
    """queued -> running, once; the winner logs the run's mode (EV-C6)."""
    if Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
        status=Run.Status.RUNNING, updated_at=timezone.now()
    ):
        run.status = Run.Status.RUNNING
        if run.config["mode"] == "end_to_end":
            logger.info(
                "[Eval] mode=end_to_end planning_ack=true",
                extra={"run_id": run.run_id},
            )
        else:
            logger.info("[Eval] mode=thought_only", extra={"run_id": run.run_id})


def eval_run_scenarios(
    *,
    run_pk: int,
    scenario_ids: Iterable[str],
    on_progress: ProgressCallback | None = None,
) -> int:
    """Run the given scenarios of a run; returns how many were recorded now.

    Skips scenarios that already have a ``CaseResult`` (a redelivered chunk
    after a worker restart redoes nothing finished) and does nothing for a
    run that is no longer queued or running. Re-reads the suite and checks
    its sha256 against the run's; on a mismatch (or an unreadable suite or
    an unbuildable model) the run is marked failed with the reason and
    nothing is run. Per scenario it logs EV-C3's ``scenario_run`` line, then
    PA-D2's ``goal_emitted`` or PA-D3's ``no_goal`` line, and PA-D1's
    ``[Grounding] fail`` line on a hallucination; writes the scenario
    artifact, then the ``CaseResult``, and bumps ``progress_done``.
    """
    run = Run.objects.select_related("benchmark").get(pk=run_pk)
    if run.status not in ACTIVE_STATUSES:
        return 0
    try:
        context = _run_context(run)
    except RunBroken as exc:
        eval_run_fail(run_pk=run.pk, error=exc.message, code=exc.code)
        return 0
    _mark_running(run)
    wanted = set(scenario_ids)
    done = set(
        CaseResult.objects.filter(run=run, case_id__in=wanted).values_list(
            "case_id", flat=True
        )
    )
    agent = _eval_agent(run) if context.mode == "end_to_end" else None
    recorded = 0
    pending: list[tuple[Scenario, dict[str, Any]]] = []
    last_flush = time.monotonic()
    for scenario in context.suite.scenarios:
        if scenario.scenario_id not in wanted or scenario.scenario_id in done:
            continue
        ran = _run_scenario(run, context, scenario)
        if agent is not None:
            recorded += _record_end_to_end(
                run, context, scenario, ran, agent, on_progress
            )
            continue
        artifact = _artifact(run, context, scenario, ran, planning=None)
        _write_artifact(run, scenario, artifact)
        pending.append((scenario, artifact))
        if (
            len(pending) >= RECORD_BATCH
            or time.monotonic() - last_flush >= RECORD_INTERVAL_S
        ):
            recorded += _record(run, pending, on_progress)
            pending, last_flush = [], time.monotonic()
    if pending:
        recorded += _record(run, pending, on_progress)
    return recorded


def _eval_agent(run: Run) -> Any:
    from stream.services.agents import agent_list_visible

    owner = get_user_model().objects.get(pk=run.config["agentOwnerId"])
    return agent_list_visible(user=owner).get(name=run.config["agent"])


@dataclass(frozen=True, slots=True)
class ScenarioRun:
    """One scenario through the pipeline, before anything is recorded."""

    result: PipelineResult | None
    facts: SituationFacts | None
    frame: RenderedFrame | None
    error: str | None
    started: datetime
    completed: datetime


def _run_scenario(run: Run, context: RunContext, scenario: Scenario) -> ScenarioRun:
    started = timezone.now()
    result: PipelineResult | None = None
    facts: SituationFacts | None = None
    error: str | None = None
    try:
        facts = facts_from_wire(scenario.frame_doc)
        result = run_pipeline(
            facts,
            profile=context.profile,
            adapter=context.adapter,
            sampler=context.sampler,
            seed=context.seed,
            clock=time.monotonic,
            scenario_id=scenario.scenario_id,
        )
    except CoreError as exc:
        error = f"{exc.code}: {exc.message}"
    except Exception as exc:  # a broken adapter must not sink the whole run
        logger.exception("[Eval] scenario_crashed scenario=%s", scenario.scenario_id)
        error = f"{type(exc).__name__}: {exc}"

    if result is not None:
        frame: RenderedFrame | None = result.frame
    elif facts is not None:
        frame = render_frame(facts, profile=context.profile)
    else:
        frame = None
    logger.info(
        "[Eval] scenario_run id=%s profile=%s facts=%s memories=%s deltas=%s seed=%s",
        scenario.scenario_id,
        context.profile.value,
        frame.fact_count if frame else 0,
        frame.memory_count if frame else 0,
        frame.delta_count if frame else 0,
        context.seed,
        extra={"run_id": run.run_id, "scenario": scenario.scenario_id},
    )
    if result is None:
        logger.warning(
            "[Eval] scenario_error scenario=%s error=%s",
            scenario.scenario_id,
            (error or "")[:200],
            extra={"run_id": run.run_id, "scenario": scenario.scenario_id},
        )
    else:
        _log_decision(run, scenario, result)
    return ScenarioRun(result, facts, frame, error, started, timezone.now())


def _write_artifact(run: Run, scenario: Scenario, artifact: dict[str, Any]) -> None:
    write_json_atomic(
        Path(run.artifacts_dir) / scenario_artifact_path(scenario.scenario_id),
        artifact,
    )


def _record_end_to_end(
    run: Run,
    context: RunContext,
    scenario: Scenario,
    ran: ScenarioRun,
    agent: Any,
    on_progress: ProgressCallback | None,
) -> int:
    """Publish, let planning poll, and record the scenario, all or nothing.

    The model call is already done; what happens in the run's stream and the
    CaseResult commit together, so a chunk retried after a failure never
    publishes a scenario twice.
    """
    with transaction.atomic():
        # Chunks of one run may run in parallel: the row lock (a write lock
        # on SQLite) keeps publish + poll + record of one scenario together,
        # so the tasks a poll creates belong to the thought just published.
        Run.objects.filter(pk=run.pk).update(updated_at=timezone.now())
        if CaseResult.objects.filter(run=run, case_id=scenario.scenario_id).exists():
            return 0
        planning = (
            _publish_and_plan(run, agent, ran.result, ran.facts)
            if ran.result is not None and ran.facts is not None
            else None
        )
        artifact = _artifact(run, context, scenario, ran, planning=planning)
        _write_artifact(run, scenario, artifact)
        return _record(run, [(scenario, artifact)], on_progress)


def _log_decision(run: Run, scenario: Scenario, result: PipelineResult) -> None:
    goal = result.sanitized.goal
    extra = {"run_id": run.run_id, "scenario": scenario.scenario_id}
    if goal is None:
        logger.info(
            "[Eval] no_goal scenario=%s convertEligible=%s",
            scenario.scenario_id,
            str(result.eligibility.convert_eligible).lower(),
            extra=extra,
        )
        return
    grounding = result.grounding
    if not grounding.passed:
        reason = grounding.category.value if grounding.category else grounding.reason
        logger.warning(
            "[Grounding] fail scenario=%s reason=%s",
            scenario.scenario_id,
            reason,
            extra=extra,
        )
    logger.info(
        "[Eval] goal_emitted scenario=%s action=%s target=%s grounding=%s routable=%s",
        scenario.scenario_id,
        goal.action,
        goal.target,
        "pass" if grounding.passed else "fail",
        str(result.routable).lower(),
        extra=extra,
    )


def _publish_and_plan(
    run: Run, agent: Any, result: PipelineResult, facts: SituationFacts
) -> dict[str, Any]:
    """Publish the scenario's output into the run's stream and let planning
    consume the actionable feed; what planning did, for the artifact."""
    from stream.services.planning import planning_poll_once
    from stream.services.thoughts import ThoughtInput, thoughts_publish

    thoughts = thoughts_publish(
        agent=agent,
        items=[
            ThoughtInput(
                content=result.generation.text,
                type="eval",
                source="eval",
                eval_run_id=run.run_id,
            )
        ],
        facts=facts,
        use_latest_facts=False,
    )
    poll = planning_poll_once(agent=agent, processed_by=f"eval:{run.run_id}")
    thought = thoughts[0]
    return {
        "agent": agent.name,
        "thoughtId": thought.pk,
        "convertEligible": bool(thought.convert_eligible),
        "eligibilityReason": thought.eligibility_reason,
        "fetched": int(poll.fetched),
        "converted": int(poll.converted),
        "skipped": int(poll.skipped),
        "errors": int(poll.errors),
        "acked": int(poll.acked),
        "taskIds": [int(t) for t in poll.task_ids],
    }


def _artifact(
    run: Run,
    context: RunContext,
    scenario: Scenario,
    ran: ScenarioRun,
    *,
    planning: dict[str, Any] | None,
) -> dict[str, Any]:
    result, error, frame = ran.result, ran.error, ran.frame
    goal = result.sanitized.goal if result else None
    grounding = result.grounding if result else None
    tasks_created = len(planning["taskIds"]) if planning is not None else None
    category = (
        grounding.category.value
        if grounding is not None and goal is not None and grounding.category
        else None
    )
    outcome = ScenarioOutcome(
        scenario_id=scenario.scenario_id,
        affordance=scenario.stimulus.action_affordance,
        stimulus_kind=scenario.stimulus.kind,
        tags=scenario.tags,
        error=error,
        output_text=result.sanitized.text if result else "",
        goal_emitted=_goal_emitted(
            goal is not None,
            result.sanitized.goal_fail_reason.value
            if result and result.sanitized.goal_fail_reason
            else None,
        ),
        goal_extracted=goal is not None,
        grounding_passed=grounding.passed if grounding and goal else None,
        hallucination_category=category if grounding and not grounding.passed else None,
        convert_eligible=bool(result and result.eligibility.convert_eligible),
        latency_ms=(result.generation.latency_ms or 0.0) if result else 0.0,
        tasks_created=tasks_created,
    )
    verdict = evaluate_scenario(outcome)
    document = scenario_artifact(
        run_id=run.run_id,
        suite_id=context.suite.suite_id,
        scenario_id=scenario.scenario_id,
        scenario_version=scenario.version,
        scenario_sha256=scenario.scenario_sha256,
        stimulus_kind=scenario.stimulus.kind.value,
        action_affordance=scenario.stimulus.action_affordance.value,
        profile=context.profile.value,
        mode=context.mode,
        frame_text=frame.text if frame else "",
        frame_facts=frame.fact_count if frame else 0,
        frame_memories=frame.memory_count if frame else 0,
        frame_deltas=frame.delta_count if frame else 0,
        model=context.model,
        raw_output=result.generation.text if result else None,
        thought_text=result.sanitized.text if result else None,
        extracted_goal=goal_to_wire(goal),
        goal_fail_reason=(
            result.sanitized.goal_fail_reason.value
            if result and result.sanitized.goal_fail_reason
            else None
        ),
        grounding_passed=outcome.grounding_passed,
        grounding_reason=grounding.reason if grounding else None,
        hallucination_category=outcome.hallucination_category,
        convert_eligible=outcome.convert_eligible,
        convert_eligible_reason=(result.eligibility.reason if result else "error"),
        started_at=ran.started.isoformat(),
        completed_at=ran.completed.isoformat(),
        latency_ms=outcome.latency_ms,
        passed=verdict.passed,
        fail_reasons=verdict.fail_reasons,
        tasks_created=tasks_created,
        error=error,
    )
    # Beyond EV-C4's list: where the scenario sits in the suite (metrics are
    # order-sensitive), what routing and planning did.
    document["suiteLine"] = scenario.line
    document["tags"] = list(scenario.tags)
    document["routable"] = bool(result and result.routable)
    document["sanitizerFlags"] = list(result.sanitized.flags) if result else []
    document["planning"] = planning
    return document


def _goal_emitted(extracted: bool, fail_reason: str | None) -> bool:
    # A tag that failed extraction was still emitted; only "no_tag" means none.
    return extracted or (
        fail_reason is not None and fail_reason != GoalFailReason.NO_TAG.value
    )


def _record(
    run: Run,
    batch: list[tuple[Scenario, dict[str, Any]]],
    on_progress: ProgressCallback | None,
) -> int:
    """Store the CaseResults of ``batch`` (artifacts already on disk) and
    bump ``progress_done`` by the number stored, in one transaction.

    A row that exists already (a duplicate delivery of the same chunk got
    there first) is skipped, never counted twice.
    """
    rows = [
        CaseResult(
            run=run,
            case_id=scenario.scenario_id,
            passed=artifact["pass"],
            error=artifact["error"] or "",
            latency_ms=artifact["latencyMs"],
            stimulus_kind=scenario.stimulus.kind.value,
            affordance=scenario.stimulus.action_affordance.value,
            tags=list(scenario.tags),
            details=artifact,
        )
        for scenario, artifact in batch
    ]
    with transaction.atomic():
        existing = set(
            CaseResult.objects.filter(
                run=run, case_id__in=[r.case_id for r in rows]
            ).values_list("case_id", flat=True)
        )
        rows = [r for r in rows if r.case_id not in existing]
        try:
            with transaction.atomic():
                CaseResult.objects.bulk_create(rows)
            stored = len(rows)
        except IntegrityError:
            stored = sum(_record_one(row) for row in rows)
        Run.objects.filter(pk=run.pk).update(
            progress_done=F("progress_done") + stored, updated_at=timezone.now()
        )
    if on_progress is not None:
        done = Run.objects.values_list("progress_done", flat=True).get(pk=run.pk)
        on_progress(done, run.total_cases)
    return stored


def _record_one(row: CaseResult) -> bool:
    try:
        with transaction.atomic():
            row.save(force_insert=True)
    except IntegrityError:
        return False
    return True


# --- finishing ---------------------------------------------------------------


def eval_run_fail(*, run_pk: int, error: str, code: str = "run_failed") -> Run:
    """Mark an active run failed with ``error`` and finalize what it has.

    A no-op for a run that already finished. Logs
    ``[Eval] run_failed run_id=<ID> reason=<CODE>`` at ERROR.
    """
    run = Run.objects.get(pk=run_pk)
    changed = Run.objects.filter(pk=run_pk, status__in=ACTIVE_STATUSES).update(
        status=Run.Status.FAILED, error=error[:5000], updated_at=timezone.now()
    )
    if changed:
        logger.error(
            "[Eval] run_failed run_id=%s reason=%s",
            run.run_id,
            code,
            extra={"run_id": run.run_id, "error": error[:500]},
        )
    return eval_run_finalize(run_pk=run_pk)


def _outcome_of(case: CaseResult) -> ScenarioOutcome:
    details = case.details
    grounding = details.get("grounding") or {}
    return ScenarioOutcome(
        scenario_id=case.case_id,
        affordance=ActionAffordance(case.affordance),
        stimulus_kind=StimulusKind(case.stimulus_kind),
        tags=tuple(case.tags),
        error=details.get("error"),
        output_text=details.get("thought") or "",
        goal_emitted=_goal_emitted(
            details.get("extractedGoal") is not None, details.get("goalFailReason")
        ),
        goal_extracted=details.get("extractedGoal") is not None,
        grounding_passed=grounding.get("pass"),
        hallucination_category=grounding.get("category")
        if grounding.get("pass") is False
        else None,
        convert_eligible=bool(details.get("convertEligible")),
        latency_ms=float(details.get("latencyMs") or 0.0),
        tasks_created=details.get("tasksCreated"),
    )


def eval_run_finalize(*, run_pk: int, now: datetime | None = None) -> Run:
    """Compute metrics and verdict from the stored results; close the run.

    Status: ``completed`` when every scenario ran without error, ``partial``
    when some errored or never ran, ``failed`` when the run was failed
    before. A scenario that never ran counts as errored, so the verdict
    FAILs on ``no_scenario_errors``. Logs EV-C5's summary line, then EV-C7's
    ``[Eval] PASS ...`` line or ``[Eval] FAIL properties_satisfied=false
    failed=<properties>``; writes ``summary.json`` and seed 002's run summary
    (``Run.summary``), so baselines and the CI gate cover harness runs.
    Idempotent: a finalized run (``completed_at`` set) is returned as is.
    """
    run = Run.objects.select_related("benchmark").get(pk=run_pk)
    if run.completed_at is not None:
        return run
    now = now or timezone.now()
    cases = sorted(
        run.case_results.all(),
        key=lambda c: (c.details.get("suiteLine", 0), c.case_id),
    )
    outcomes = [_outcome_of(c) for c in cases]
    metrics = compute_metrics(outcomes)
    verdict = evaluate_verdict(metrics, outcomes)
    missing = max(run.total_cases - len(cases), 0)
    failed_properties = set(verdict.failed_properties)
    if missing or run.status == Run.Status.FAILED:
        failed_properties.add(VerdictProperty.NO_SCENARIO_ERRORS.value)
    if run.status == Run.Status.FAILED:
        status = Run.Status.FAILED
    elif missing or metrics.scenarios_errored:
        status = Run.Status.PARTIAL
    else:
        status = Run.Status.COMPLETED
    passed = not failed_properties
    passed_cases = sum(1 for c in cases if c.passed)
    wire_metrics = metrics_to_wire(metrics)
    case_rows = [
        {"caseId": c.case_id, "passed": c.passed, "durationMs": c.latency_ms or 0.0}
        for c in cases
    ]
    run.completed_at = now
    summary = _run_summary(run, status=status, metrics=wire_metrics, cases=case_rows)
    updated = Run.objects.filter(pk=run.pk, completed_at__isnull=True).update(
        status=status,
        completed_at=now,
        passed_cases=passed_cases,
        failed_cases=run.total_cases - passed_cases,
        metrics=wire_metrics,
        verdict_passed=passed,
        failed_properties=sorted(failed_properties),
        summary=summary,
        updated_at=now,
    )
    run.refresh_from_db()
    if not updated:
        return run
    _write_summary(run, verdict, wire_metrics)
    logger.info(
        "[Eval] summary action_rate=%s grounding_pass_rate=%s repetition_rate=%s "
        "compulsion_proxy=%s latency_p95_ms=%s",
        format_metric(metrics.action_rate),
        format_metric(metrics.grounding_pass_rate),
        format_metric(metrics.repetition_rate),
        format_metric(metrics.compulsion_proxy),
        format_metric(metrics.latency_p95_ms),
        extra={"run_id": run.run_id},
    )
    if passed:
        logger.info(
            "[Eval] PASS properties_satisfied=true action_rate_may_be_zero=true",
            extra={"run_id": run.run_id},
        )
    else:
        logger.info(
            "[Eval] FAIL properties_satisfied=false failed=%s",
            ",".join(sorted(failed_properties)),
            extra={"run_id": run.run_id},
        )
    logger.info(
        "[Eval] run_finished run_id=%s status=%s passed_cases=%s total_cases=%s",
        run.run_id,
        status,
        passed_cases,
        run.total_cases,
        extra={"run_id": run.run_id},
    )
    return run


def _write_summary(
    run: Run, verdict: EvalVerdict, metrics: dict[str, float | int]
) -> None:
    config = run.config
    # summary_artifact derives pass/fail per scenario from the verdict; a
    # failed run's verdict must not read as PASS.
    failed = tuple(run.failed_properties)
    document = summary_artifact(
        run_id=run.run_id,
        suite_id=run.benchmark.benchmark_id,
        suite_sha256=run.suite_sha256,
        suite_line_count=config.get("suiteLineCount", run.total_cases),
        profile=config["profile"],
        mode=config["mode"],
        model=ModelConfig(
            model_id=config["modelId"],
            adapter=config["model"],
            sampler=config["sampler"],
            seed=config["seed"],
            sampler_params=config.get("samplerParams"),
        ),
        status=run.status,
        started_at=run.started_at.isoformat(),
        completed_at=run.completed_at.isoformat() if run.completed_at else None,
        metrics=metrics,
        verdict=EvalVerdict(
            passed=bool(run.verdict_passed),
            failed_properties=failed,
            per_scenario=verdict.per_scenario,
        ),
        suite_path=config.get("suitePath"),
    )
    document["totalCases"] = run.total_cases
    document["failedCases"] = run.total_cases - document["passedCases"]
    if run.error:
        document["run"]["error"] = run.error
    write_json_atomic(Path(run.artifacts_dir) / "summary.json", document)


def _run_summary(
    run: Run,
    *,
    status: str,
    metrics: dict[str, float | int],
    cases: list[dict[str, Any]],
) -> dict[str, Any]:
    """Seed 002's run summary of a harness run (``runs/<run-id>.json``)."""
    passed = sum(1 for c in cases if c["passed"])
    summary: dict[str, Any] = {
        "schemaVersion": 1,
        "runId": run.run_id,
        "benchmarkId": run.benchmark.benchmark_id,
        "status": status,
        "startedAt": run.started_at.isoformat(),
        "totalCases": run.total_cases,
        "passedCases": passed,
        "failedCases": run.total_cases - passed if cases else 0,
        "metrics": dict(metrics),
    }
    if run.completed_at is not None:
        summary["completedAt"] = run.completed_at.isoformat()
    if cases:
        summary["caseResults"] = cases
    return summary


def eval_run_execute(*, run: Run, on_progress: ProgressCallback | None = None) -> Run:
    """Run every chunk of ``run`` in this process, then finalize it.

    The same service functions the Celery tasks call, without a broker: the
    CLI's ``--wait``, the demo and the benchmark use it. Safe to call on a
    half-done run (finished scenarios are skipped).
    """
    suite_ids = [
        s.scenario_id for s in suite_read(Path(run.config["suitePath"])).scenarios
    ]
    for ids in scenario_chunks(suite_ids, settings.EVALS_CHUNK_SIZE):
        eval_run_scenarios(run_pk=run.pk, scenario_ids=ids, on_progress=on_progress)
        if Run.objects.filter(pk=run.pk, status=Run.Status.FAILED).exists():
            break
    return eval_run_finalize(run_pk=run.pk)


# --- reading -----------------------------------------------------------------


def eval_run_list(
    *,
    suite: str | None = None,
    status: str | None = None,
    verdict: str | None = None,
) -> QuerySet[Run]:
    """Harness runs, newest first, filtered by suite id, status and verdict
    (``pass``/``fail``; a run still going has none)."""
    runs = Run.objects.select_related("benchmark").filter(
        benchmark__kind=Benchmark.Kind.SUITE
    )
    if suite:
        runs = runs.filter(benchmark__benchmark_id=suite)
    if status:
        runs = runs.filter(status=status)
    if verdict == "pass":
        runs = runs.filter(verdict_passed=True)
    elif verdict == "fail":
        runs = runs.filter(verdict_passed=False)
    return runs.order_by("-started_at", "-pk")


def eval_run_get(*, run_id: str) -> Run:
    run = Run.objects.select_related("benchmark").filter(run_id=run_id).first()
    if run is None:
        raise NotFound(f"no run {run_id!r}")
    return run


def run_cases(run: Run) -> list[CaseResult]:
    """A run's case results in suite order."""
    return sorted(
        run.case_results.all(),
        key=lambda c: (c.details.get("suiteLine", 0), c.case_id),
    )


def run_artifact_path(run: Run, relative: str) -> Path:
    """The file ``relative`` of the run's bundle, refusing anything outside
    the artifacts root or the run directory (``NotFound``)."""
    root = Path(settings.EVALS_ARTIFACTS_DIR).resolve()
    run_dir = Path(run.artifacts_dir).resolve() if run.artifacts_dir else None
    if run_dir is None or not run_dir.is_relative_to(root):
        raise NotFound("this run has no artifacts under the artifacts root")
    path = (run_dir / relative).resolve()
    if not path.is_relative_to(run_dir) or path.suffix != ".json":
        raise NotFound(f"no artifact {relative!r}")
    if not path.is_file():
        raise NotFound(f"no artifact {relative!r}")
    return path


def run_progress(run: Run) -> dict[str, int]:
    return {"done": run.progress_done, "total": run.total_cases}
