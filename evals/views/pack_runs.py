"""The page of a run recorded from a run summary (posted over REST or
imported from an eval store): its case results with pass/fail, score,
duration and notes, the git ref, the metrics, and its verdict against the
benchmark's baseline in the CI gate's words. Harness runs have their
scenario page (``evals.views.harness``), gridworld runs their batch page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evals.models import CaseResult, Run
from evals.services.standings import run_baseline_standing
from evals.views.dashboard import metric_value_rows

PROMPT_CHARS = 160


@dataclass(frozen=True, slots=True)
class CaseRow:
    case_id: str
    prompt: str
    passed: bool
    score: Any
    duration_ms: float | None
    notes: str


def _case_rows(run: Run) -> list[CaseRow]:
    """Case results in the manifest's case order (unknown ids last, by id),
    each with its prompt when the pack has that case."""
    cases = run.benchmark.manifest.get("cases") if run.benchmark.manifest else None
    prompts: dict[str, str] = {}
    order: dict[str, int] = {}
    for index, case in enumerate(cases if isinstance(cases, list) else []):
        if isinstance(case, dict) and isinstance(case.get("id"), str):
            order.setdefault(case["id"], index)
            prompts.setdefault(case["id"], str(case.get("prompt") or ""))
    results: list[CaseResult] = list(run.case_results.all())
    results.sort(key=lambda c: (order.get(c.case_id, len(order)), c.case_id))
    return [
        CaseRow(
            case_id=case.case_id,
            prompt=prompts.get(case.case_id, ""),
            passed=case.passed,
            score=case.details.get("score"),
            duration_ms=case.latency_ms,
            notes=str(case.details.get("notes") or ""),
        )
        for case in results
    ]


def pack_run_detail(request: HttpRequest, run: Run) -> HttpResponse:
    """The run's page (see the module docstring)."""
    rows = _case_rows(run)
    return render(
        request,
        "evals/run_cases.html",
        {
            "run": run,
            "rows": rows,
            "has_scores": any(row.score is not None for row in rows),
            "has_notes": any(row.notes for row in rows),
            "has_durations": any(row.duration_ms is not None for row in rows),
            "has_prompts": any(row.prompt for row in rows),
            "metric_rows": metric_value_rows(run.metrics),
            "standing": run_baseline_standing(run),
            "prompt_chars": PROMPT_CHARS,
        },
    )
