"""Executing a scenario eval run: the harness's case executor.

``SuiteExecutor`` is the lifecycle's executor of benchmarks of kind
``suite`` (see ``evals.services.runs.lifecycle``). Each chunk re-reads the suite
and refuses to go on when its sha256 is no longer the run's; each scenario
goes through the same thinking pipeline the live agent uses
(``stream.core.pipeline.run_pipeline``) and, in ``end_to_end`` mode, through
the same stream and planning services, on the run's isolated agent. Per
scenario it logs EV-C3's ``scenario_run`` line, then PA-D2's
``goal_emitted`` or PA-D3's ``no_goal`` line, and PA-D1's ``[Grounding]
fail`` line on a hallucination; writes the scenario artifact, then hands the
case to the recorder. Each case's model call becomes a span, the chunk's
spans stored in one batch at its end (``evals.services.harness.call_spans``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from core.errors import CoreError, NotFound
from evals.core.outcomes import (
    RunContext,
    ScenarioRun,
    model_config_of,
    scenario_artifact_of,
)
from evals.core.repeats import epoch_case_id, repeat_case_ids, repeats_of
from evals.core.scenario_artifact import PlanningRecord
from evals.core.suite_types import Scenario, SuiteInvalid
from evals.models import CaseResult, Run
from evals.services.harness.artifacts import (
    artifact_bytes,
    bundle_dirs_create,
    case_record,
    write_artifact,
)
from evals.services.harness.call_spans import ChunkCalls
from evals.services.harness.create import adapter_for
from evals.services.harness.finish import suite_run_finished, suite_run_verdict
from evals.services.harness.suites import suite_read
from evals.services.runs.executors import BaseCaseExecutor, RunBroken, RunVerdict
from evals.services.runs.recording import CaseRecorder
from stream.core.adapters import SAMPLERS, ModelCallFailed, ScriptedAdapter
from stream.core.claims import claims_to_wire, ground_claims
from stream.core.frames import facts_from_valid_wire, render_frame
from stream.core.pipeline import run_pipeline
from stream.core.types import (
    PipelineResult,
    PromptProfile,
    RenderedFrame,
    SituationFacts,
)
from stream.selectors import agent_list_visible
from stream.services.planning import planning_poll_once
from stream.services.thoughts import ThoughtInput, thoughts_publish

logger = logging.getLogger(__name__)


class SuiteExecutor(BaseCaseExecutor):
    """Cases are the suite's scenarios, in suite order."""

    def case_ids(self, run: Run) -> list[str]:
        suite = suite_read(Path(run.config["suitePath"]))
        return repeat_case_ids(
            [s.scenario_id for s in suite.scenarios], repeats_of(run.config)
        )

    def prepare(self, run: Run) -> RunContext:
        context = run_context(run)
        bundle_dirs_create(run)
        return context

    def started(self, run: Run) -> None:
        # EV-C6: the run's mode, once, when it starts running.
        if run.config["mode"] == "end_to_end":
            logger.info(
                "[Eval] mode=end_to_end planning_ack=true",
                extra={"run_id": run.run_id},
            )
        else:
            logger.info("[Eval] mode=thought_only", extra={"run_id": run.run_id})

    def execute(
        self,
        run: Run,
        context: RunContext,
        case_ids: Sequence[str],
        recorder: CaseRecorder,
    ) -> None:
        calls = ChunkCalls(run.run_id)
        try:
            _execute_cases(run, context, case_ids, recorder, calls)
        except BaseException:
            # The calls were made (and maybe paid for) even if the chunk
            # failed: keep them, without hiding the chunk's own error.
            try:
                calls.store()
            except Exception:
                logger.exception("[Eval] spans_not_stored count=%s", len(calls.records))
            raise
        calls.store()

    def verdict(
        self, run: Run, cases: Sequence[CaseResult], *, missing: int, failed: bool
    ) -> RunVerdict:
        return suite_run_verdict(run, cases, missing=missing, failed=failed)

    def finished(self, run: Run, verdict: RunVerdict) -> None:
        suite_run_finished(run, verdict)


def _execute_cases(
    run: Run,
    context: RunContext,
    case_ids: Sequence[str],
    recorder: CaseRecorder,
    calls: ChunkCalls,
) -> None:
    wanted = set(case_ids)
    repeats = repeats_of(run.config)
    epochs = [
        (scenario, epoch, epoch_case_id(scenario.scenario_id, epoch, repeats))
        for scenario in context.suite.scenarios
        for epoch in range(repeats)
    ]
    epochs = [item for item in epochs if item[2] in wanted]
    if context.mode == "end_to_end":
        agent = _eval_agent(run)
        for scenario, epoch, case_id in epochs:
            seeded = epoch_context(context, epoch)
            ran = _run_scenario(run, seeded, scenario, case_id, calls)
            _record_end_to_end(run, seeded, scenario, ran, agent, recorder, case_id)
        return
    for scenario, epoch, case_id in epochs:
        seeded = epoch_context(context, epoch)
        ran = _run_scenario(run, seeded, scenario, case_id, calls)
        artifact = scenario_artifact_of(
            run.run_id,
            seeded,
            scenario,
            ran,
            planning=None,
            claims=_claims(run, scenario, ran),
        )
        encoded = artifact_bytes(artifact)
        write_artifact(run, scenario, encoded, case_id)
        recorder.add(case_record(scenario, artifact, encoded, case_id=case_id))


def run_context(run: Run) -> RunContext:
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
        adapter, script_sha256 = adapter_for(
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
        model=model_config_of(config),
        seed=config["seed"],
        artifacts_dir=Path(run.artifacts_dir),
    )


def _eval_agent(run: Run) -> Any:
    owner = get_user_model().objects.get(pk=run.config["agentOwnerId"])
    return agent_list_visible(user=owner).get(name=run.config["agent"])


def epoch_context(context: RunContext, epoch: int) -> RunContext:
    """The run's context for ``epoch`` of a scenario: the model's seed is the
    run's seed plus the epoch (kept under 2**31), as the epoch's artifact
    records it; epoch 0 is the run's own context."""
    if epoch == 0:
        return context
    seed = (context.seed + epoch) % 2**31
    return replace(context, seed=seed, model=replace(context.model, seed=seed))


def _script_key(context: RunContext, scenario: Scenario, case_id: str) -> str:
    """The id a scripted model looks its output up by: the epoch's own id
    (``<scenario>#<n>``) when the script has a line for it, else the
    scenario's, whose output every epoch then replays."""
    adapter = context.adapter
    if case_id == scenario.scenario_id or not isinstance(adapter, ScriptedAdapter):
        return scenario.scenario_id
    return case_id if case_id in adapter.outputs else scenario.scenario_id


def _run_scenario(
    run: Run, context: RunContext, scenario: Scenario, case_id: str, calls: ChunkCalls
) -> ScenarioRun:
    started = timezone.now()
    seed = context.seed
    result: PipelineResult | None = None
    facts: SituationFacts | None = None
    error: str | None = None
    try:
        # The suite's schema validated the frame when the suite was loaded.
        facts = facts_from_valid_wire(scenario.frame_doc)
        result = run_pipeline(
            facts,
            profile=context.profile,
            adapter=context.adapter,
            sampler=context.sampler,
            seed=seed,
            clock=time.monotonic,
            scenario_id=_script_key(context, scenario, case_id),
        )
    except CoreError as exc:
        error = f"{exc.code}: {exc.message}"
        if isinstance(exc, ModelCallFailed):
            calls.add(case_id, exc.call, started)
    except Exception as exc:  # a broken adapter must not sink the whole run
        logger.exception("[Eval] scenario_crashed scenario=%s", case_id)
        error = f"{type(exc).__name__}: {exc}"

    if result is not None:
        calls.add(case_id, result.generation.call, started)
        frame: RenderedFrame | None = result.frame
    elif facts is not None:
        frame = render_frame(facts, profile=context.profile)
    else:
        frame = None
    logger.info(
        "[Eval] scenario_run id=%s profile=%s facts=%s memories=%s deltas=%s seed=%s",
        case_id,
        context.profile.value,
        frame.fact_count if frame else 0,
        frame.memory_count if frame else 0,
        frame.delta_count if frame else 0,
        seed,
        extra={"run_id": run.run_id, "scenario": case_id},
    )
    if result is None:
        logger.warning(
            "[Eval] scenario_error scenario=%s error=%s",
            case_id,
            (error or "")[:200],
            extra={"run_id": run.run_id, "scenario": case_id},
        )
    else:
        _log_decision(run, case_id, result)
    return ScenarioRun(result, facts, frame, error, started, timezone.now())


def _record_end_to_end(
    run: Run,
    context: RunContext,
    scenario: Scenario,
    ran: ScenarioRun,
    agent: Any,
    recorder: CaseRecorder,
    case_id: str,
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
        if recorder.is_recorded(case_id):
            return 0
        planning = (
            _publish_and_plan(run, agent, case_id, ran.result, ran.facts)
            if ran.result is not None and ran.facts is not None
            else None
        )
        artifact = scenario_artifact_of(
            run.run_id,
            context,
            scenario,
            ran,
            planning=planning,
            claims=_claims(run, scenario, ran),
        )
        encoded = artifact_bytes(artifact)
        write_artifact(run, scenario, encoded, case_id)
        return recorder.record_now(
            [case_record(scenario, artifact, encoded, case_id=case_id)]
        )


def _claims(run: Run, scenario: Scenario, ran: ScenarioRun) -> dict[str, Any] | None:
    """The artifact's ``claims``: free-text claims checked against the frame,
    a measurement beside the goal's grounding (None when the model never
    answered)."""
    if ran.result is None or ran.facts is None:
        return None
    checked = ground_claims(
        ran.result.sanitized.text,
        facts=ran.facts,
        frame_text=ran.frame.text if ran.frame else "",
    )
    if checked.ungrounded:
        logger.info(
            "[Claims] ungrounded scenario=%s names=%s",
            scenario.scenario_id,
            ",".join(f"{c.category.value}:{c.name}" for c in checked.ungrounded),
            extra={"run_id": run.run_id, "scenario": scenario.scenario_id},
        )
    return claims_to_wire(checked)


def _log_decision(run: Run, case_id: str, result: PipelineResult) -> None:
    goal = result.sanitized.goal
    extra = {"run_id": run.run_id, "scenario": case_id}
    if goal is None:
        logger.info(
            "[Eval] no_goal scenario=%s convertEligible=%s",
            case_id,
            str(result.eligibility.convert_eligible).lower(),
            extra=extra,
        )
        return
    grounding = result.grounding
    if not grounding.passed:
        reason = grounding.category.value if grounding.category else grounding.reason
        logger.warning(
            "[Grounding] fail scenario=%s reason=%s",
            case_id,
            reason,
            extra=extra,
        )
    logger.info(
        "[Eval] goal_emitted scenario=%s action=%s target=%s grounding=%s routable=%s",
        case_id,
        goal.action,
        goal.target,
        "pass" if grounding.passed else "fail",
        str(result.routable).lower(),
        extra=extra,
    )


def _publish_and_plan(
    run: Run,
    agent: Any,
    case_id: str,
    result: PipelineResult,
    facts: SituationFacts,
) -> PlanningRecord:
    """Publish the scenario's output into the run's stream and let planning
    consume the actionable feed; what planning did, for the artifact.

    The thought carries its case (the scenario, or its epoch with repeats),
    so content dedup and goalKey idempotency see only that case's state:
    scenarios with the same goal give the same results in any order.
    """
    thoughts = thoughts_publish(
        agent=agent,
        items=[
            ThoughtInput(
                content=result.generation.text,
                type="eval",
                source="eval",
                eval_run_id=run.run_id,
                eval_scenario=case_id,
            )
        ],
        facts=facts,
        use_latest_facts=False,
    )
    poll = planning_poll_once(agent=agent, processed_by=f"eval:{run.run_id}")
    thought = thoughts[0]
    return PlanningRecord(
        agent=agent.name,
        thought_id=thought.pk,
        convert_eligible=bool(thought.convert_eligible),
        eligibility_reason=thought.eligibility_reason,
        fetched=int(poll.fetched),
        converted=int(poll.converted),
        skipped=int(poll.skipped),
        errors=int(poll.errors),
        acked=int(poll.acked),
        task_ids=tuple(int(t) for t in poll.task_ids),
    )
