"""stream.core.model_calls: the record of a call and the usage it reported."""

from __future__ import annotations

from typing import Any

import pytest

from stream.core.adapters import SAMPLERS, ScriptedAdapter
from stream.core.baseline import BaselineAdapter
from stream.core.model_calls import (
    PROVIDER_BUILTIN,
    sampled_call,
    usage_from_openai,
)
from stream.core.pipeline import run_pipeline
from stream.core.types import CallUsage, Generation, ModelCall, PromptProfile


def test_full_usage_block_gives_every_count() -> None:
    block = {
        "prompt_tokens": 120,
        "completion_tokens": 30,
        "total_tokens": 150,
        "prompt_tokens_details": {"cached_tokens": 100},
        "completion_tokens_details": {"reasoning_tokens": 12},
    }
    assert usage_from_openai(block) == CallUsage(120, 30, 100, 12)


@pytest.mark.parametrize("absent", [None, "12", [], 7])
def test_absent_usage_is_unknown_not_zero(absent: Any) -> None:
    assert usage_from_openai(absent) is None


def test_counts_left_out_or_malformed_are_unknown() -> None:
    block = {
        "prompt_tokens": 5,
        "completion_tokens": -1,
        "prompt_tokens_details": {"cached_tokens": True},
        "completion_tokens_details": "none",
    }
    assert usage_from_openai(block) == CallUsage(5, None, None, None)
    assert usage_from_openai({}) == CallUsage(None, None, None, None)
    assert usage_from_openai({"prompt_tokens": 2.5, "completion_tokens": 0}) == (
        CallUsage(None, 0, None, None)
    )


def test_sampled_call_records_the_sampling_sent() -> None:
    call = sampled_call("openai", "gpt-x", sampler=SAMPLERS["creative"], seed=7)
    assert call == ModelCall(
        provider="openai",
        request_model="gpt-x",
        temperature=0.9,
        top_p=1.0,
        max_tokens=768,
        seed=7,
    )
    assert call.request_params == {
        "temperature": 0.9,
        "top_p": 1.0,
        "max_tokens": 768,
        "seed": 7,
    }
    assert ModelCall("p", "m").request_params == {}


def test_the_call_takes_no_part_in_comparing_generations() -> None:
    assert Generation("a", 1.0, ModelCall("p", "m")) == Generation("a", 1.0)
    assert hash(Generation("a", 1.0, ModelCall("p", "m"))) == hash(Generation("a", 1.0))


def test_builtin_adapters_report_their_call_without_usage() -> None:
    scripted = ScriptedAdapter.from_lines(
        ['{"scenario_id": "s", "output": "quiet", "latency_ms": 40}']
    )
    got = scripted.generate("p", sampler=SAMPLERS["standard"], seed=3, scenario_id="s")
    assert got.call == ModelCall(
        provider=PROVIDER_BUILTIN,
        request_model="scripted",
        temperature=0.7,
        top_p=0.95,
        max_tokens=512,
        seed=3,
        latency_ms=40.0,
        finish_reason="stop",
    )
    baseline = BaselineAdapter().generate("p", sampler=SAMPLERS["standard"], seed=3)
    assert baseline.call is not None
    assert (baseline.call.provider, baseline.call.request_model) == (
        PROVIDER_BUILTIN,
        "baseline-v1",
    )
    assert baseline.call.usage is None
    assert baseline.call.latency_ms is None


class _Silent:
    """An adapter that reports no call record."""

    model_id = "fake:quiet"

    def generate(self, prompt: str, **_: Any) -> Generation:
        return Generation("It is quiet.")


def _clock() -> Any:
    ticks = iter([1.0, 1.25])
    return lambda: next(ticks)


def test_pipeline_carries_the_call_with_the_latency_it_measured(
    calm_facts: Any,
) -> None:
    result = run_pipeline(
        calm_facts,
        profile=PromptProfile.BALANCED,
        adapter=BaselineAdapter(),
        sampler=SAMPLERS["standard"],
        seed=5,
        clock=_clock(),
    )
    assert result.generation.latency_ms == 250.0
    assert result.generation.call is not None
    assert result.generation.call.latency_ms == 250.0
    assert result.generation.call.request_model == "baseline-v1"


def test_pipeline_records_a_call_for_an_adapter_that_reports_none(
    calm_facts: Any,
) -> None:
    result = run_pipeline(
        calm_facts,
        profile=PromptProfile.BALANCED,
        adapter=_Silent(),
        sampler=SAMPLERS["low-variance"],
        seed=9,
        clock=_clock(),
    )
    assert result.generation.call == ModelCall(
        provider="",
        request_model="fake:quiet",
        temperature=0.3,
        top_p=0.9,
        max_tokens=512,
        seed=9,
        latency_ms=250.0,
    )
