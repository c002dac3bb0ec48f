"""Building the record of one model call (``stream.core.types.ModelCall``).

Every adapter returns a ``ModelCall`` with its ``Generation`` (and the HTTP
adapter puts one on the ``ModelUnavailable`` or ``ModelError`` it raises),
so the harness and the keep-alive loop can store each call as a span:
provider, the model asked for and the one that answered, the sampling
parameters sent, token usage, timings, the finish reason, retries and the
error. Invariants:

- Usage the endpoint did not report is ``None``, never 0: an absent
  ``usage`` block gives ``usage=None``, an absent count inside it ``None``
  (``usage_from_openai``).
- Pure: no clock is read here; the adapters that time a call fill the
  timings with their injected clocks.
"""

from __future__ import annotations

from typing import Any, Final

from stream.core.types import CallUsage, ModelCall, SamplerProfile

# The provider of the built-in adapters (the scripted replays and the
# baseline policy): no model is called and nothing is charged.
PROVIDER_BUILTIN: Final = "evalsite"
PROVIDER_OPENAI: Final = "openai"


def sampled_call(
    provider: str,
    model: str,
    *,
    sampler: SamplerProfile,
    seed: int,
    latency_ms: float | None = None,
    finish_reason: str = "",
) -> ModelCall:
    """The record of a call to ``model`` with ``sampler`` and ``seed``; what
    is known of its answer (``latency_ms``, ``finish_reason``) when given.
    One construction: the harness makes one per scenario."""
    return ModelCall(
        provider=provider,
        request_model=model,
        temperature=sampler.temperature,
        top_p=sampler.top_p,
        max_tokens=sampler.max_tokens,
        seed=seed,
        latency_ms=latency_ms,
        finish_reason=finish_reason,
    )


def _count(value: Any) -> int | None:
    """A token count, or ``None`` for anything that is not an integer >= 0
    (a bool, a float, a negative number, a string)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def usage_from_openai(usage: Any) -> CallUsage | None:
    """The counts of an OpenAI-compatible ``usage`` block.

    ``prompt_tokens``, ``completion_tokens``,
    ``prompt_tokens_details.cached_tokens`` and
    ``completion_tokens_details.reasoning_tokens``; ``None`` when the block
    is absent (or not an object), and ``None`` for each count it leaves out
    or gives as something other than an integer >= 0. Never raises.
    """
    if not isinstance(usage, dict):
        return None
    prompt_details = usage.get("prompt_tokens_details")
    completion_details = usage.get("completion_tokens_details")
    return CallUsage(
        input_tokens=_count(usage.get("prompt_tokens")),
        output_tokens=_count(usage.get("completion_tokens")),
        cached_input_tokens=_count(prompt_details.get("cached_tokens"))
        if isinstance(prompt_details, dict)
        else None,
        reasoning_tokens=_count(completion_details.get("reasoning_tokens"))
        if isinstance(completion_details, dict)
        else None,
    )
