"""The page of a run recorded from a run summary (posted over REST or
imported from an eval store): its case results with pass/fail, score,
duration and notes (failed first, a page at a time, with the exact counts),
the git ref, the metrics, and its verdict against the benchmark's baseline
in the CI gate's words. Harness runs have their scenario page
(``evals.views.harness``), gridworld runs their batch page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evals.models import CaseResult, Run
from evals.selectors.keyset_pages import case_counts, case_page
from evals.services.standings import run_baseline_standing
from evals.views.dashboard import metric_value_rows
from evals.views.paging import page_from, page_links

PROMPT_CHARS = 160


@dataclass(frozen=True, slots=True)
class CaseRow:
    case_id: str
    prompt: str
    passed: bool
    score: Any
    duration_ms: float | None
    notes: str


CASES_PER_PAGE = 50


def _case_rows(run: Run, cases: list[CaseResult]) -> list[CaseRow]:
    """The page's case results, each with its prompt when the pack has
    that case."""
    listed = run.benchmark.manifest.get("cases") if run.benchmark.manifest else None
    prompts: dict[str, str] = {}
    for case in listed if isinstance(listed, list) else []:
        if isinstance(case, dict) and isinstance(case.get("id"), str):
            prompts.setdefault(case["id"], str(case.get("prompt") or ""))
    return [
        CaseRow(
            case_id=case.case_id,
            prompt=prompts.get(case.case_id, ""),
            passed=case.passed,
            score=case.details.get("score"),
            duration_ms=case.latency_ms,
            notes=str(case.details.get("notes") or ""),
        )
        for case in cases
    ]


def pack_run_detail(request: HttpRequest, run: Run) -> HttpResponse:
    """The run's page (see the module docstring): its case results failed
    first, then by case id, a keyset page at a time."""
    page = page_from(request, lambda **at: case_page(run, size=CASES_PER_PAGE, **at))
    rows = _case_rows(run, page.rows)
    return render(
        request,
        "evals/run_cases.html",
        {
            "run": run,
            "rows": rows,
            "counts": case_counts(run),
            "links": page_links(page, [], anchor="case-results-heading"),
            "cases_per_page": CASES_PER_PAGE,
            "has_scores": any(row.score is not None for row in rows),
            "has_notes": any(row.notes for row in rows),
            "has_durations": any(row.duration_ms is not None for row in rows),
            "has_prompts": any(row.prompt for row in rows),
            "metric_rows": metric_value_rows(run.metrics),
            "standing": run_baseline_standing(run),
            "prompt_chars": PROMPT_CHARS,
        },
    )
