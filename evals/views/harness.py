"""HTML pages of the scenario eval harness: suites, runs, run detail.

Thin: every read and write goes through ``evals.services.harness``; charts
come from ``evals.charts``. Every page needs a login; the artifact view
serves only JSON files inside the run's bundle under the artifacts root.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods

from core.errors import CoreError, NotFound, SchemaInvalid
from evals import charts
from evals.core.repeats import WITHIN_ZERO, format_figure, repeats_of
from evals.core.scenario_artifact import ScenarioArtifact, is_scenario_artifact
from evals.core.stats_input import MAX_REPEATS
from evals.models import Run
from evals.selectors.benchmarks import suite_benchmarks, suite_get
from evals.selectors.keyset_pages import case_counts, case_page, newest_first_page
from evals.selectors.runs import harness_run_list, run_artifact_path, run_get
from evals.services.harness.create import (
    DEFAULT_REDUCER,
    DEFAULT_REPEATS,
    DEFAULT_SAMPLER,
    DEFAULT_SEED,
    MODELS,
    MODES,
    PROFILES,
    SAMPLER_NAMES,
    eval_run_create,
)
from evals.services.harness.finish import stored_run_uncertainty
from evals.services.harness.suites import (
    SCRIPT_SUFFIX,
    suite_files,
    suite_resolve,
    suites_dir,
)
from evals.services.runs.lifecycle import ACTIVE_STATUSES
from evals.views.dashboard import metric_value_rows
from evals.views.pack_runs import pack_run_detail
from evals.views.paging import page_from, page_links
from evalsite.paths import scrubbed
from traces.facade import run_page_usage, trace_url_for_case

# A gridworld run's case id: its episode index (gridworld/services); in a
# batch with repeats K, ``episode-<i>#<e>`` is episode i + e * (total / K).
EPISODE_CASE = re.compile(r"episode-(\d+)(?:#(\d+))?")

RUNS_PER_PAGE = 25
CASES_PER_PAGE = 50
RECENT_RUNS = 10


def _run_or_404(run_id: str) -> Run:
    try:
        return run_get(run_id=run_id)
    except NotFound:
        raise Http404("no such run") from None


@login_required
def index(request: HttpRequest) -> HttpResponse:
    """Suites on disk with their version history, and the latest runs."""
    benchmarks = {b.benchmark_id: b for b in suite_benchmarks()}
    files = suite_files()
    on_disk = {f.suite_id for f in files}
    return render(
        request,
        "evals/index.html",
        {
            "suites": [(f, benchmarks.get(f.suite_id)) for f in files],
            "elsewhere": [b for k, b in sorted(benchmarks.items()) if k not in on_disk],
            "recent_runs": list(harness_run_list()[:RECENT_RUNS]),
        },
    )


@login_required
def suite_detail(request: HttpRequest, suite_id: str) -> HttpResponse:
    """One suite: the file now, its versions as it changed, its runs."""
    try:
        benchmark = suite_get(suite_id=suite_id)
    except NotFound:
        raise Http404("no such suite") from None
    runs = harness_run_list(suite=suite_id)
    page = page_from(
        request,
        lambda **at: newest_first_page(
            runs, time_field="started_at", size=RUNS_PER_PAGE, **at
        ),
    )
    current = next((f for f in suite_files() if f.suite_id == suite_id), None)
    versions = list(benchmark.suite_versions.all())
    run_counts = {
        v.suite_sha256: runs.filter(suite_sha256=v.suite_sha256).count()
        for v in versions
    }
    finished = [r for r in runs.exclude(completed_at=None).order_by("started_at")]
    return render(
        request,
        "evals/suite_detail.html",
        {
            "benchmark": benchmark,
            "current": current,
            "versions": [(v, run_counts.get(v.suite_sha256, 0)) for v in versions],
            "page": page,
            "links": page_links(page, [], anchor="runs"),
            "trend_figure": charts.suite_trend_figure(finished) if finished else None,
        },
    )


@login_required
def run_list(request: HttpRequest) -> HttpResponse:
    """All harness runs, filtered by suite, status and verdict, newest first
    in keyset pages (``after``/``before``)."""
    suite = request.GET.get("suite") or ""
    status = request.GET.get("status") or ""
    verdict = request.GET.get("verdict") or ""
    if status not in Run.Status.values:
        status = ""
    if verdict not in ("pass", "fail"):
        verdict = ""
    runs = harness_run_list(
        suite=suite or None, status=status or None, verdict=verdict or None
    )
    page = page_from(
        request,
        lambda **at: newest_first_page(
            runs, time_field="started_at", size=RUNS_PER_PAGE, **at
        ),
    )
    kept = [
        (k, v)
        for k, v in (("suite", suite), ("status", status), ("verdict", verdict))
        if v
    ]
    return render(
        request,
        "evals/run_list.html",
        {
            "page": page,
            "links": page_links(page, kept),
            "runs": page.rows,
            "suite": suite,
            "status": status,
            "verdict": verdict,
            "query": urlencode(kept),
            "suite_ids": [b.benchmark_id for b in suite_benchmarks()],
            "statuses": Run.Status.values,
        },
    )


@login_required
def run_detail(request: HttpRequest, run_id: str) -> HttpResponse:
    """Metrics, verdict and the scenarios of a run, failed first, a keyset
    page at a time; polls while it runs.

    A gridworld batch's run has its own page (episodes, not scenarios), and
    so has a run recorded from a run summary (case results, git ref, its
    verdict against the baseline)."""
    run = _run_or_404(run_id)
    if run.benchmark.kind == "gridworld":
        return redirect("gridworld:run-batch", run_id=run.run_id)
    if run.source != Run.Source.HARNESS:
        return pack_run_detail(request, run)
    page = page_from(request, lambda **at: case_page(run, size=CASES_PER_PAGE, **at))
    cases = page.rows
    return render(
        request,
        "evals/run_detail.html",
        {
            "run": run,
            "cases": cases,
            "rows": [(case, _artifact(case.details)) for case in cases],
            "columns": _scenario_columns(cases),
            "counts": case_counts(run),
            "links": page_links(page, [], anchor="scenarios"),
            "cases_per_page": CASES_PER_PAGE,
            "is_active": run.status in ACTIVE_STATUSES,
            "metric_rows": metric_value_rows(run.metrics),
            "uncertainty": uncertainty_rows(stored_run_uncertainty(run)),
            "has_summary_file": _has_artifact(run, "summary.json"),
            "usage": run_page_usage(run.run_id),
        },
    )


def uncertainty_rows(found: dict[str, Any] | None) -> dict[str, Any] | None:
    """The run page's "Uncertainty" section: each figure in words
    (``format_figure``), the advice, and whether the epochs of each
    scenario all agreed; None before the run finishes (or for a run
    finished before figures had intervals)."""
    if not found:
        return None
    return {
        "repeats": found.get("repeats", 1),
        "reducer": found.get("reducer", "mean"),
        "error": found.get("error"),
        "rows": [
            (name, format_figure(figure), figure)
            for name, figure in (found.get("metrics") or {}).items()
        ],
        "advice": found.get("advice", ""),
        "within_zero": bool(found.get("withinZero")),
        "within_zero_text": WITHIN_ZERO,
    }


def _scenario_columns(cases: list[Any]) -> dict[str, bool]:
    """The scenario table's optional columns, shown only when some scenario
    has a value for them (no column of dashes)."""
    artifacts = [_artifact(c.details) for c in cases]
    return {
        "stimulus": any(c.stimulus_kind or c.affordance for c in cases),
        "frame": any(a.frame for a in artifacts if a is not None),
        "goal": any(
            a.extracted_goal or a.goal_fail_reason not in (None, "", "no_tag")
            for a in artifacts
            if a is not None
        ),
        "latency": any(c.latency_ms is not None for c in cases),
    }


@login_required
def scenario_detail(request: HttpRequest, run_id: str, case_id: str) -> HttpResponse:
    """One scenario of a run: the artifact in full. A gridworld case is an
    episode, which has its own page (the map, the steps, the receipt)."""
    run = _run_or_404(run_id)
    case = run.case_results.filter(case_id=case_id).first()
    if case is None:
        raise Http404("no such scenario in this run")
    episode = EPISODE_CASE.fullmatch(case_id)
    if run.benchmark.kind == "gridworld" and episode:
        return redirect(
            "gridworld:run-episode",
            run_id=run.run_id,
            index=_episode_index(run, episode),
        )
    return render(
        request,
        "evals/scenario_detail.html",
        {
            "run": run,
            "case": case,
            "artifact": _artifact(case.details),
            "details": case.details,
            "trace_url": trace_url_for_case(run.run_id, case.case_id),
            **_timing(_artifact(case.details)),
        },
    )


def _episode_index(run: Run, case: re.Match[str]) -> int:
    """The episode a gridworld case id names (``EPISODE_CASE``)."""
    epoch = int(case[2] or 0)
    return int(case[1]) + epoch * (run.total_cases // repeats_of(run.config))


def _artifact(details: dict[str, Any] | None) -> ScenarioArtifact | None:
    """A case's scenario artifact; None for details of another shape."""
    return (
        ScenarioArtifact.from_wire(details) if is_scenario_artifact(details) else None
    )


def _timing(artifact: ScenarioArtifact | None) -> dict[str, Any]:
    """When this service evaluated the scenario and for how long (wall
    clock), from the artifact's own timestamps (not the model's reported
    latency); ``started`` None when they are missing or not comparable."""
    if artifact is None or not artifact.started_at or not artifact.completed_at:
        return {"started": None, "elapsed_ms": None}
    try:
        started = datetime.fromisoformat(artifact.started_at)
        completed = datetime.fromisoformat(artifact.completed_at)
    except (TypeError, ValueError):
        return {"started": None, "elapsed_ms": None}
    if (started.tzinfo is None) != (completed.tzinfo is None):
        return {"started": None, "elapsed_ms": None}
    elapsed = round((completed - started).total_seconds() * 1000, 1)
    return {"started": started, "elapsed_ms": elapsed}


@login_required
def run_artifact(request: HttpRequest, run_id: str, name: str) -> FileResponse:
    """A JSON file of the run's bundle; nothing outside it is ever served."""
    run = _run_or_404(run_id)
    try:
        path = run_artifact_path(run, name)
    except NotFound:
        raise Http404("no such artifact") from None
    return FileResponse(path.open("rb"), content_type="application/json")


class RunNewForm(forms.Form):
    suite = forms.ChoiceField()
    profile = forms.ChoiceField(choices=[(p, p) for p in PROFILES], initial="balanced")
    mode = forms.ChoiceField(choices=[(m, m) for m in MODES], initial="thought_only")
    model = forms.ChoiceField(choices=[(m, m) for m in MODELS], initial="scripted")
    script = forms.ChoiceField(
        required=False,
        help_text="scripted model only; default: <suite>.script.jsonl",
    )
    sampler = forms.ChoiceField(
        choices=[(s, s) for s in SAMPLER_NAMES], initial=DEFAULT_SAMPLER
    )
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=DEFAULT_SEED)
    repeats = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_REPEATS,
        initial=DEFAULT_REPEATS,
        help_text=f"epochs per scenario (each with its own seed); 1..{MAX_REPEATS}",
    )
    reducer = forms.CharField(
        required=False,
        max_length=20,
        initial=DEFAULT_REDUCER,
        help_text="how a scenario's epochs become one value: mean, majority, "
        "max, pass_at_<k>, pass^<k>",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        files = [f for f in suite_files() if f.is_valid]
        self.fields["suite"].choices = [
            (f.name, f"{f.suite_id} ({f.line_count} scenarios)") for f in files
        ]
        scripts = sorted(p.name for p in suites_dir().glob(f"*{SCRIPT_SUFFIX}"))
        self.fields["script"].choices = [("", "default")] + [(s, s) for s in scripts]


@login_required
@require_http_methods(["GET", "POST"])
def run_new(request: HttpRequest) -> HttpResponse:
    """The "New run" form: POST starts a run and redirects to its page."""
    form = RunNewForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = eval_run_create(
                suite_path=suite_resolve(data["suite"]),
                profile=data["profile"],
                mode=data["mode"],
                model=data["model"],
                script_path=suite_resolve(data["script"], field="script")
                if data["script"]
                else None,
                sampler=data["sampler"],
                seed=data["seed"],
                repeats=data["repeats"] or DEFAULT_REPEATS,
                reducer=data["reducer"] or DEFAULT_REDUCER,
                user=request.user,
                started_via="web",
            )
        except CoreError as exc:
            # A form shows what went wrong next to the field it is about
            # instead of an error page, with no server paths in it.
            _add_core_error(form, exc)
        else:
            return redirect(run.get_absolute_url())
    status = 400 if request.method == "POST" else 200
    return render(request, "evals/run_new.html", {"form": form}, status=status)


def _add_core_error(form: forms.Form, exc: CoreError) -> None:
    problems = exc.problems if isinstance(exc, SchemaInvalid) else ()
    placed = False
    for problem in problems:
        name = problem.path.removeprefix("$.")
        if name in form.fields:
            form.add_error(name, scrubbed(problem.message))
            placed = True
    if not placed:
        form.add_error(None, scrubbed(exc.message))


def _has_artifact(run: Run, name: str) -> bool:
    try:
        run_artifact_path(run, name)
    except NotFound:
        return False
    return True
