"""Creating a scenario eval run: validate, record, schedule.

Everything a client chooses (profile, mode, model, sampler, seed) is checked
before anything is stored; then the suite's ``Benchmark`` and
``SuiteVersion``, the run (through ``evals.services.runs.lifecycle.run_create``)
and, in end_to_end mode, the run's own inactive agent are written in one
transaction, and the run's chord is sent after commit.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from core.caches import remember
from core.canonical import sha256_hex
from core.errors import CoreError, SchemaInvalid, SchemaProblem
from evals.core.bundles import bundle_paths, new_run_id
from evals.core.provenance import pipeline_versions
from evals.core.repeats import check_reducer, check_repeats, repeat_case_ids
from evals.core.stats_input import MEAN, Reducer, StatInputError
from evals.core.suite_types import LoadedSuite
from evals.models import Benchmark, Run, SuiteVersion
from evals.services.code_version import code_version
from evals.services.harness.suites import (
    CACHE_SIZE,
    default_script_path,
    suite_read_logged,
)
from evals.services.runs.idempotency import Idempotency
from evals.services.runs.lifecycle import run_create
from stream.core.adapters import DEFAULT_SAMPLER as DEFAULT_SAMPLER
from stream.core.adapters import SAMPLERS, ModelAdapter, ScriptedAdapter
from stream.core.types import PromptProfile
from stream.core.wire import sampler_to_wire
from stream.services.adapters import (
    MODEL_CHOICES,
    model_adapter,
    model_id,
    sampler_profile,
)
from stream.services.agents import agent_create

logger = logging.getLogger(__name__)

PROFILES: tuple[str, ...] = tuple(p.value for p in PromptProfile)
MODES: tuple[str, ...] = ("thought_only", "end_to_end")
MODELS: tuple[str, ...] = MODEL_CHOICES
SAMPLER_NAMES: tuple[str, ...] = tuple(sorted(SAMPLERS))
DEFAULT_SEED = 0
DEFAULT_REPEATS = 1
DEFAULT_REDUCER = MEAN.name


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
    repeats: object = DEFAULT_REPEATS,
    reducer: str = DEFAULT_REDUCER,
    user: Any = None,
    schedule: bool = True,
    queue: str | None = None,
    started_via: str = "api",
    extra_config: dict[str, Any] | None = None,
    now: datetime | None = None,
    idempotency: Idempotency | None = None,
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
    given); without it the caller runs ``lifecycle.run_execute``.
    ``idempotency``: the request's ``Idempotency-Key``, stored with the run.
    """
    _choice(profile, PROFILES, "profile")
    _choice(mode, MODES, "mode")
    _choice(model, MODELS, "model")
    _choice(sampler, SAMPLER_NAMES, "sampler")
    repeat_count, run_reducer = repeats_and_reducer(repeats, reducer)
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
    adapter, script_sha256 = adapter_for(model, script)
    suite = suite_read_logged(suite_file)
    if isinstance(adapter, ScriptedAdapter) and script is not None:
        _script_covers_suite(adapter, suite, script.name)
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
        # As the reference harness: the first scenario's oracle version.
        "oracleVersion": suite.scenarios[0].oracle.oracle_version,
        # Repeats and reducer only when chosen: a run of one epoch reduced by
        # the mean keeps the config it always had (read back as K = 1).
        **({"repeats": repeat_count} if repeat_count != 1 else {}),
        **({"reducer": run_reducer.name} if run_reducer != MEAN else {}),
        "chunkSize": settings.EVALS_CHUNK_SIZE,
        "startedVia": started_via,
        # EV-C4: what besides suite and model made these numbers.
        "versions": pipeline_versions(git_commit=code_version()),
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
        run = run_create(
            benchmark=benchmark,
            run_id=run_id,
            started_at=now,
            total_cases=suite.line_count * repeat_count,
            config=config,
            source=Run.Source.HARNESS,
            artifacts_dir=str(paths.run_dir),
            suite_sha256=suite.suite_sha256,
            user=user,
            schedule=schedule,
            queue=queue,
            case_ids=repeat_case_ids(
                [s.scenario_id for s in suite.scenarios], repeat_count
            ),
            idempotency=idempotency,
        )
    logger.info(
        "[Eval] run_created run_id=%s suite=%s profile=%s mode=%s model=%s "
        "sampler=%s seed=%s scenarios=%s%s",
        run_id,
        suite.suite_id,
        profile,
        mode,
        config["modelId"],
        sampler,
        seed,
        suite.line_count,
        # The line of a run of one epoch reduced by the mean is as it was.
        f" repeats={repeat_count} reducer={run_reducer.name}"
        if repeat_count != 1 or run_reducer != MEAN
        else "",
        extra={"run_id": run_id},
    )
    return run


MISSING_IDS_SHOWN = 10


def repeats_and_reducer(repeats: object, reducer: str) -> tuple[int, Reducer]:
    """The run's repeats (a whole number 1..MAX_REPEATS) and reducer
    (``evals.core.stats_input.parse_reducer``); ``SchemaInvalid`` naming
    every bad field (``repeats``, ``reducer``) otherwise."""
    problems: list[SchemaProblem] = []
    count = DEFAULT_REPEATS
    try:
        count = check_repeats(repeats)
    except StatInputError as exc:
        problems.append(SchemaProblem("repeats", "invalid", exc.message))
    chosen = MEAN
    try:
        chosen = check_reducer(reducer, count)
    except StatInputError as exc:
        problems.append(SchemaProblem("reducer", "invalid", exc.message))
    if problems:
        raise SchemaInvalid("; ".join(p.message for p in problems), problems=problems)
    return count, chosen


def _script_covers_suite(
    adapter: ScriptedAdapter, suite: LoadedSuite, script_name: str
) -> None:
    """Refuse a script that has an output for none of the suite's scenarios:
    such a run could only end ``partial`` with ``script_missing`` on every
    scenario. A script covering some of them is a legitimate run (the
    uncovered scenarios fail with ``script_missing``)."""
    ids = [s.scenario_id for s in suite.scenarios]
    missing = adapter.uncovered(ids)
    if not ids or len(missing) < len(ids):
        return
    shown = ", ".join(missing[:MISSING_IDS_SHOWN])
    if len(missing) > MISSING_IDS_SHOWN:
        shown += f" and {len(missing) - MISSING_IDS_SHOWN} more"
    message = (
        f"script {script_name} has no output for any of the "
        f"{len(ids)} scenarios of suite {suite.suite_id}; missing: {shown}"
    )
    error = SchemaInvalid(
        message,
        problems=[SchemaProblem("script", "script_covers_no_scenario", message)],
    )
    # The API answer carries every id beside the (shortened) message.
    error.details["missingScenarioIds"] = list(missing)
    raise error


def _model_id(model: str, script: Path | None) -> str:
    if model == "scripted" and script is not None:
        return f"scripted:{script.name}"
    return model_id(model)


# Scripted adapters by (path, sha256 of the script bytes), for the same
# reason as _SUITE_CACHE: a chunk re-reads the script, never re-parses it.
_ADAPTER_CACHE: dict[tuple[str, str], ModelAdapter] = {}


def adapter_for(model: str, script: Path | None) -> tuple[ModelAdapter, str | None]:
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
        adapter = remember(
            _ADAPTER_CACHE,
            key,
            model_adapter(model, script_path=script),
            size=CACHE_SIZE,
        )
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
    name = eval_agent_name(run_id)
    agent_create(name=name, owner=owner, is_active=False)
    return name
