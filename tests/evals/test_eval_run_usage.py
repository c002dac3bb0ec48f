"""eval_run --wait ends with the run's model calls, tokens and cost."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from tests.model_endpoint import ModelHandler, serve, usage

pytestmark = pytest.mark.django_db
SMOKE = ("--suite", "smoke", "--profile", "balanced", "--mode", "thought_only")


def _eval_run(*args: str) -> list[str]:
    out = StringIO()
    call_command("eval_run", *SMOKE, *args, "--wait", stdout=out, stderr=StringIO())
    return out.getvalue().splitlines()


def test_the_scripted_model_reports_no_tokens_and_costs_nothing() -> None:
    lines = _eval_run("--model", "scripted")
    assert lines[-3:] == [
        "model calls: 5",
        "tokens: not reported by the model",
        "cost: $0.0000",
    ]


def test_an_openai_run_prints_its_tokens_and_priced_cost(settings: Any) -> None:
    class Handler(ModelHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.answer_chat(
                json.loads(self.read_body()),
                "The plains are quiet.",
                model="gpt-4o-mini-2024-07-18",
                usage=usage(1000, 200, cached=0),
            )

    with serve(Handler) as url:
        settings.OPENAI_BASE_URL = url
        settings.OPENAI_MODEL = "gpt-4o-mini"
        lines = _eval_run("--model", "openai")
    # 5 calls of 1,000 input and 200 output tokens at $0.15 and $0.60 per 1M.
    assert lines[-3:] == [
        "model calls: 5",
        "tokens: input 5,000 output 1,000 (cached 0)",
        "cost: $0.0014 (priced by table 2026-11-01)",
    ]


def test_an_unpriced_model_is_unknown_never_zero(settings: Any) -> None:
    class Handler(ModelHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.answer_chat(json.loads(self.read_body()), "Quiet.", usage=None)

    with serve(Handler) as url:
        settings.OPENAI_BASE_URL = url
        settings.OPENAI_MODEL = "no-such-model-anywhere"
        lines = _eval_run("--model", "openai")
    assert lines[-3:] == [
        "model calls: 5",
        "tokens: not reported by the model",
        "cost: unknown (5 calls unpriced)",
    ]
