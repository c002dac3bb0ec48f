"""Model adapters built from configuration (the one place that reads it)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from core.errors import CoreError
from stream.core.adapters import SAMPLERS, ModelAdapter, ScriptedAdapter
from stream.core.baseline import BaselineAdapter
from stream.core.types import SamplerProfile

MODEL_CHOICES = ("scripted", "baseline", "openai")


def model_adapter(name: str, *, script_path: str | Path | None = None) -> ModelAdapter:
    """The adapter called ``name``; scripted needs a script file."""
    if name == "baseline":
        return BaselineAdapter()
    if name == "scripted":
        if not script_path:
            raise CoreError(
                "the scripted model needs a script file (--script)", code="invalid"
            )
        return ScriptedAdapter.from_path(Path(script_path))
    if name == "openai":
        # Imported here on purpose, not for a cycle: httpx (0.1-0.5 s to
        # import) is loaded only by a process that asks for this model.
        from stream.adapters_http import OpenAIChatAdapter

        if not settings.OPENAI_MODEL:
            raise CoreError(
                "OPENAI_MODEL is not set; point OPENAI_BASE_URL/OPENAI_MODEL at an "
                "OpenAI-compatible endpoint",
                code="invalid",
            )
        return OpenAIChatAdapter(
            base_url=settings.OPENAI_BASE_URL,
            model=settings.OPENAI_MODEL,
            api_key=settings.OPENAI_API_KEY or None,
            timeout_s=settings.OPENAI_TIMEOUT_S,
            max_retries=settings.OPENAI_MAX_RETRIES,
            stream=settings.OPENAI_STREAM,
        )
    raise CoreError(
        f"unknown model {name!r}; one of {', '.join(MODEL_CHOICES)}", code="invalid"
    )


def sampler_profile(name: str) -> SamplerProfile:
    try:
        return SAMPLERS[name]
    except KeyError:
        raise CoreError(
            f"unknown sampler {name!r}; one of {', '.join(sorted(SAMPLERS))}",
            code="invalid",
        ) from None


def model_id(name: str) -> str:
    """A stable identifier of the configured model, for artifacts and runs."""
    if name == "openai":
        return f"openai:{settings.OPENAI_MODEL}@{settings.OPENAI_BASE_URL}"
    return name
