"""stream.services.adapters: the model adapter, sampler and model id a name
in the configuration stands for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.errors import CoreError
from stream.adapters_http import OpenAIChatAdapter
from stream.core.adapters import SAMPLERS, ScriptedAdapter
from stream.core.baseline import BaselineAdapter
from stream.services.adapters import model_adapter, model_id, sampler_profile

SCRIPT = Path(__file__).resolve().parents[3] / "evals" / "suites" / "smoke.script.jsonl"


def test_baseline_and_scripted_name_their_adapters() -> None:
    assert isinstance(model_adapter("baseline"), BaselineAdapter)
    assert isinstance(model_adapter("scripted", script_path=SCRIPT), ScriptedAdapter)


def test_the_scripted_model_needs_a_script_file() -> None:
    with pytest.raises(CoreError, match=r"needs a script file \(--script\)") as caught:
        model_adapter("scripted")
    assert caught.value.code == "invalid"


def test_openai_needs_its_model_and_then_calls_the_configured_endpoint(
    settings: Any,
) -> None:
    settings.OPENAI_MODEL = ""
    with pytest.raises(CoreError, match="OPENAI_MODEL is not set"):
        model_adapter("openai")
    settings.OPENAI_MODEL = "tiny"
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1/"
    adapter = model_adapter("openai")
    assert isinstance(adapter, OpenAIChatAdapter)
    assert (adapter.base_url, adapter.model) == ("http://127.0.0.1:9/v1", "tiny")
    assert model_id("openai") == "openai:tiny@http://127.0.0.1:9/v1/"


def test_an_unknown_model_or_sampler_names_the_choices() -> None:
    with pytest.raises(
        CoreError, match="unknown model 'gpt'; one of scripted, baseline, openai"
    ):
        model_adapter("gpt")
    with pytest.raises(
        CoreError,
        match="unknown sampler 'hot'; one of creative, low-variance, standard",
    ):
        sampler_profile("hot")


def test_a_sampler_name_is_its_profile_and_other_models_are_their_own_id() -> None:
    assert sampler_profile("standard") is SAMPLERS["standard"]
    assert model_id("baseline") == "baseline"
