"""The one thinking pipeline: render -> prompt -> model -> sanitize -> decide."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from stream.core.adapters import SAMPLERS, ScriptedAdapter, ScriptMissing
from stream.core.baseline import BaselineAdapter
from stream.core.eligibility import decide_eligibility
from stream.core.frames import render_frame
from stream.core.grounding import ground
from stream.core.pipeline import evaluate_output, run_pipeline
from stream.core.prompts import build_prompt
from stream.core.sanitizer import sanitize
from stream.core.types import (
    EligibilityDecision,
    Generation,
    PromptProfile,
    RenderedFrame,
    SamplerProfile,
    SituationFacts,
)

ROOT = Path(__file__).parents[3]


def _ticking_clock(step_s: float = 0.25):  # type: ignore[no-untyped-def]
    ticks = itertools.count()
    return lambda: next(ticks) * step_s


def test_pipeline_with_scripted_output(full_facts: SituationFacts) -> None:
    adapter = ScriptedAdapter.from_lines(
        ['{"scenario_id": "s1", "output": "Wood here. [GOAL: collect oak_log 4]"}']
    )
    result = run_pipeline(
        full_facts,
        profile=PromptProfile.BALANCED,
        adapter=adapter,
        sampler=SAMPLERS["standard"],
        seed=1,
        clock=_ticking_clock(),
        scenario_id="s1",
    )
    frame = render_frame(full_facts, profile=PromptProfile.BALANCED)
    assert result.frame == frame
    assert result.prompt == build_prompt(frame)
    assert result.generation == Generation(
        "Wood here. [GOAL: collect oak_log 4]", 250.0
    )
    assert result.sanitized == sanitize("Wood here. [GOAL: collect oak_log 4]")
    assert result.grounding.passed
    assert result.eligibility == EligibilityDecision(True, "eligible")
    assert result.routable is True


def test_adapter_latency_wins_over_the_clock(full_facts: SituationFacts) -> None:
    adapter = ScriptedAdapter.from_lines(
        ['{"scenario_id": "s1", "output": "Quiet.", "latency_ms": 42}']
    )
    result = run_pipeline(
        full_facts,
        profile=PromptProfile.MINIMAL,
        adapter=adapter,
        sampler=SAMPLERS["standard"],
        seed=1,
        clock=_ticking_clock(),
        scenario_id="s1",
    )
    assert result.generation.latency_ms == 42.0
    assert result.eligibility == EligibilityDecision(False, "no_goal")
    assert result.routable is False


class RecordingAdapter:
    """Captures what the pipeline passes to a model."""

    def __init__(self) -> None:
        self.calls: list[
            tuple[str, SamplerProfile, int, str | None, RenderedFrame]
        ] = []

    @property
    def model_id(self) -> str:
        return "recording"

    def generate(
        self,
        prompt: str,
        *,
        sampler: SamplerProfile,
        seed: int,
        scenario_id: str | None = None,
        frame: RenderedFrame | None = None,
    ) -> Generation:
        assert frame is not None
        self.calls.append((prompt, sampler, seed, scenario_id, frame))
        return Generation("[GOAL: check zombie]")


def test_pipeline_passes_prompt_sampler_seed_and_frame(
    full_facts: SituationFacts,
) -> None:
    adapter = RecordingAdapter()
    result = run_pipeline(
        full_facts,
        profile=PromptProfile.RICH,
        adapter=adapter,
        sampler=SAMPLERS["creative"],
        seed=99,
        clock=_ticking_clock(0.5),
        scenario_id="sc",
    )
    [(prompt, sampler, seed, scenario_id, frame)] = adapter.calls
    assert (prompt, sampler, seed, scenario_id) == (
        result.prompt,
        SAMPLERS["creative"],
        99,
        "sc",
    )
    assert frame == result.frame
    assert result.generation.latency_ms == 500.0
    assert result.routable is False
    assert result.eligibility.reason == "not_routable"


def test_adapter_errors_propagate(full_facts: SituationFacts) -> None:
    with pytest.raises(ScriptMissing):
        run_pipeline(
            full_facts,
            profile=PromptProfile.RICH,
            adapter=ScriptedAdapter.from_lines([]),
            sampler=SAMPLERS["standard"],
            seed=1,
            clock=_ticking_clock(),
            scenario_id="nope",
        )


def test_pipeline_is_deterministic_with_the_baseline(
    full_facts: SituationFacts,
) -> None:
    def once() -> object:
        return run_pipeline(
            full_facts,
            profile=PromptProfile.RICH,
            adapter=BaselineAdapter(),
            sampler=SAMPLERS["creative"],
            seed=5,
            clock=lambda: 0.0,
            scenario_id="s",
        )

    assert once() == once()


def test_evaluate_output_is_the_pipeline_tail(full_facts: SituationFacts) -> None:
    text = "```\nZombie! [GOAL: navigate away from zombie]\n```"
    sanitized, grounding, decision = evaluate_output(text, facts=full_facts)
    assert sanitized == sanitize(text)
    assert grounding == ground(sanitized.goal, facts=full_facts)
    assert decision == decide_eligibility(sanitized, grounding)
    assert decision.convert_eligible is True


def test_core_reads_no_clock_no_environment_and_no_global_random() -> None:
    sources = {
        path.name: path.read_text() for path in (ROOT / "stream" / "core").glob("*.py")
    }
    mine = {
        "adapters.py", "baseline.py", "degeneration.py", "eligibility.py",
        "frames.py", "goals.py", "grounding.py", "intent.py", "pipeline.py",
        "prompts.py", "sanitizer.py", "types.py", "wire.py",
    }  # fmt: skip
    for name in sorted(mine):
        source = sources[name]
        for forbidden in (
            "time.time(", "perf_counter", "datetime.now", "os.environ", "uuid4",
            "random.random(", "random.choice(", "import logging",
        ):  # fmt: skip
            assert forbidden not in source, (name, forbidden)


def test_pipeline_modules_import_without_django() -> None:
    code = (
        "import sys, stream.core.pipeline, stream.core.wire, stream.core.adapters;"
        "assert 'django' not in sys.modules and 'httpx' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
