"""The one thinking pipeline: frame -> model -> sanitize -> ground -> decide.

The live keep-alive loop and the eval harness both call ``run_pipeline``, so an
eval measures production behaviour. Invariants:

- Pure apart from the adapter call: the clock is injected (monotonic seconds)
  and read only around ``adapter.generate``; no logging (services turn the
  result into the seeds' log lines).
- Same facts, profile, adapter output and seed give the same result, except
  a latency the adapter does not report, which comes from the clock.
- ``evaluate_output`` is the same tail for thoughts that arrive as raw text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from stream.core.adapters import ModelAdapter
from stream.core.eligibility import decide_eligibility
from stream.core.frames import render_frame
from stream.core.goals import ROUTABLE_ACTIONS
from stream.core.grounding import ground
from stream.core.model_calls import sampled_call
from stream.core.prompt_guard import check_prompt
from stream.core.prompts import build_prompt
from stream.core.sanitizer import sanitize
from stream.core.types import (
    EligibilityDecision,
    Generation,
    GroundingResult,
    PipelineResult,
    PromptProfile,
    SamplerProfile,
    SanitizeResult,
    SituationFacts,
)


def evaluate_output(
    text: str, *, facts: SituationFacts
) -> tuple[SanitizeResult, GroundingResult, EligibilityDecision]:
    """Sanitize raw model output, ground its goal in ``facts``, decide.

    Never raises for any string; deterministic.
    """
    sanitized = sanitize(text)
    grounding = ground(sanitized.goal, facts=facts)
    return sanitized, grounding, decide_eligibility(sanitized, grounding)


def run_pipeline(
    facts: SituationFacts,
    *,
    profile: PromptProfile,
    adapter: ModelAdapter,
    sampler: SamplerProfile,
    seed: int,
    clock: Callable[[], float],
    scenario_id: str | None = None,
) -> PipelineResult:
    """Render ``facts`` for ``profile``, ask ``adapter``, evaluate the answer.

    ``generation.latency_ms`` is the adapter's own figure when it reports one
    (a recorded or transport-measured latency), else the ``clock`` difference
    around the call. ``generation.call`` is the adapter's record of the call
    with that latency filled in when it had none (an adapter that reports no
    record gets one naming its ``model_id`` and the sampling sent). A prompt
    that would carry goal text raises ``PromptViolation`` before the adapter
    is called (I-1, KA-A1). Errors from the adapter (``CoreError``
    subclasses) propagate unchanged.
    """
    frame = render_frame(facts, profile=profile)
    prompt = build_prompt(frame)
    check_prompt(prompt, frame=frame)
    started = clock()
    generated = adapter.generate(
        prompt, sampler=sampler, seed=seed, scenario_id=scenario_id, frame=frame
    )
    elapsed_ms = (clock() - started) * 1000.0
    latency = generated.latency_ms if generated.latency_ms is not None else elapsed_ms
    call = generated.call or sampled_call(
        "", adapter.model_id, sampler=sampler, seed=seed
    )
    if call.latency_ms is None:
        call = replace(call, latency_ms=latency)
    sanitized, grounding, eligibility = evaluate_output(generated.text, facts=facts)
    goal = sanitized.goal
    return PipelineResult(
        frame=frame,
        prompt=prompt,
        generation=Generation(generated.text, latency, call),
        sanitized=sanitized,
        grounding=grounding,
        eligibility=eligibility,
        routable=goal is not None and goal.action in ROUTABLE_ACTIONS,
    )
