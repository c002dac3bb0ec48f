"""HTML pages of benchmarks (packs and suites alike), baseline snapshots with
their delta reports, and the pack upload page.

Thin: reads and writes go through ``evals.selectors`` and the services
(``benchmarks``, ``benchmark_records``, ``baselines``). Every page needs a
login. The delta report is rendered from the gate's markdown by
``report_html``: every line is escaped first, then headings and bullets
become tags, so nothing in a benchmark id or a message can inject markup.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.html import escape
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_http_methods

from core.errors import Conflict, CoreError, Forbidden, NotFound, SchemaInvalid
from evals.core.exports import Export, verdict_markdown_export
from evals.core.gate import DEFAULT_SNAPSHOT_ID
from evals.core.gate_report import verdict_to_markdown
from evals.models import Benchmark, InvalidUpload, Run
from evals.selectors.baselines import snapshot_get, snapshot_list
from evals.selectors.benchmarks import benchmark_get, benchmark_tags
from evals.selectors.benchmarks import benchmark_list as benchmarks_filtered
from evals.selectors.keyset_pages import newest_first_page
from evals.selectors.runs import run_list
from evals.services.baselines import baseline_snapshot_bytes, baseline_snapshot_create
from evals.services.benchmark_reports import baseline_delta_report
from evals.services.benchmarks import pack_manifest_bytes
from evals.services.features import harness_flags
from evals.services.pack_files import pack_file_names
from evals.services.pack_uploads import benchmark_pack_upload
from evals.views.dashboard import metric_value_rows
from evals.views.downloads import export_response
from evals.views.paging import page_from, page_links

PER_PAGE = 25
CASES_SHOWN = 200


def report_html(markdown: str) -> SafeString:
    """The gate's markdown report as HTML: ``#``/``##`` headings, ``-``
    bullets nested by two-space indents, other lines as paragraphs.

    Each text is escaped before it is wrapped in a tag, so the result is
    safe whatever the report says.
    """
    out: list[str] = []
    depth = 0

    def close(to: int) -> None:
        nonlocal depth
        while depth > to:
            out.append("</li></ul>")
            depth -= 1

    for line in markdown.splitlines():
        stripped = line.lstrip(" ")
        if stripped.startswith("- "):
            level = min((len(line) - len(stripped)) // 2 + 1, depth + 1)
            if level > depth:
                out.append("<ul><li>")
                depth = level
            else:
                close(level)
                out.append("</li><li>")
            out.append(str(escape(stripped[2:])))
            continue
        close(0)
        if line.startswith("## "):
            out.append(f"<h3>{escape(line[3:])}</h3>")
        elif line.startswith("# "):
            out.append(f"<h2>{escape(line[2:])}</h2>")
        elif line.strip():
            out.append(f"<p>{escape(line)}</p>")
    close(0)
    return mark_safe("".join(out))  # noqa: S308 (every text escaped above)


def _trends_url(benchmark_id: str) -> str:
    try:
        base = reverse("evals:trends")
    except NoReverseMatch:
        base = "/evals/trends"
    return f"{base}?{urlencode({'benchmark': benchmark_id})}"


def _benchmark_or_404(benchmark_id: str) -> Benchmark:
    try:
        return benchmark_get(benchmark_id=benchmark_id)
    except NotFound:
        raise Http404("no such benchmark") from None


@login_required
def benchmark_list(request: HttpRequest) -> HttpResponse:
    """Every benchmark with its latest run, filtered by kind, type and tag."""
    kind = request.GET.get("kind") or ""
    benchmark_type = request.GET.get("type") or ""
    tag = request.GET.get("tag") or ""
    if kind not in Benchmark.Kind.values:
        kind = ""
    if benchmark_type not in Benchmark.BenchmarkType.values:
        benchmark_type = ""
    benchmarks = benchmarks_filtered(
        kind=kind or None, benchmark_type=benchmark_type or None, tag=tag or None
    )
    page = Paginator(benchmarks, PER_PAGE).get_page(request.GET.get("page"))
    latest = Run.objects.in_bulk(
        [b.latest_run_pk for b in page.object_list if b.latest_run_pk]
    )
    query = urlencode(
        [
            (key, value)
            for key, value in (("kind", kind), ("type", benchmark_type), ("tag", tag))
            if value
        ]
    )
    return render(
        request,
        "evals/benchmark_list.html",
        {
            "page": page,
            "rows": [(b, latest.get(b.latest_run_pk)) for b in page.object_list],
            "kind": kind,
            "type": benchmark_type,
            "tag": tag,
            "query": query,
            "kinds": Benchmark.Kind.choices,
            "types": Benchmark.BenchmarkType.values,
            "tags": benchmark_tags(),
        },
    )


@login_required
def benchmark_detail(request: HttpRequest, benchmark_id: str) -> HttpResponse:
    """Manifest, cases, runs with pass rate, the latest run, trends link."""
    benchmark = _benchmark_or_404(benchmark_id)
    runs = run_list(benchmark_id=benchmark_id)
    page = page_from(
        request,
        lambda **at: newest_first_page(
            runs, time_field="started_at", size=PER_PAGE, **at
        ),
    )
    cases = benchmark.manifest.get("cases") if benchmark.manifest else None
    cases = cases if isinstance(cases, list) else []
    shown_cases = cases[:CASES_SHOWN]
    return render(
        request,
        "evals/benchmark_detail.html",
        {
            # Columns every row would leave at "—" are left out.
            "show_signals": any(
                isinstance(case, dict) and case.get("expectedSignals")
                for case in shown_cases
            ),
            "show_git_ref": any(run.git_ref for run in page.rows),
            "benchmark": benchmark,
            "manifest": benchmark.manifest or None,
            "cases": shown_cases,
            "cases_hidden": max(0, len(cases) - CASES_SHOWN),
            "files": pack_file_names(benchmark=benchmark),
            "page": page,
            "links": page_links(page, [], anchor="runs"),
            # The newest run is the first page's first row.
            "latest_run": page.rows[0] if page.is_first and page.rows else runs.first(),
            "latest_completed": runs.filter(status=Run.Status.COMPLETED)
            .order_by("-completed_at", "-pk")
            .first(),
            "trends_url": _trends_url(benchmark.benchmark_id),
        },
    )


@login_required
def benchmark_manifest(request: HttpRequest, benchmark_id: str) -> HttpResponse:
    """The pack's manifest as stored (the store's canonical bytes)."""
    benchmark = _benchmark_or_404(benchmark_id)
    if not benchmark.manifest:
        raise Http404("this benchmark has no manifest")
    try:
        data = pack_manifest_bytes(benchmark)
    except SchemaInvalid:
        raise Http404("the stored manifest is no longer valid") from None
    return export_response(
        Export(
            data,
            "application/json",
            f"{benchmark.benchmark_id}-manifest.json",
            "attachment",
        )
    )


class SnapshotForm(forms.Form):
    snapshot_id = forms.CharField(
        label="Snapshot id", max_length=200, initial=DEFAULT_SNAPSHOT_ID
    )
    notes = forms.CharField(
        label="Notes", required=False, max_length=5000, widget=forms.Textarea
    )


@login_required
@require_http_methods(["GET", "POST"])
def baseline_list(request: HttpRequest) -> HttpResponse:
    """Snapshots, newest first, and the "snapshot the latest runs" form."""
    flags = harness_flags()
    form = SnapshotForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            result = baseline_snapshot_create(
                snapshot_id=form.cleaned_data["snapshot_id"],
                notes=form.cleaned_data["notes"] or None,
                user=request.user,
            )
        except SchemaInvalid as error:
            for problem in error.problems:
                form.add_error("snapshot_id", problem.message)
            status = 400
        except Forbidden as error:
            form.add_error(None, error.message)
            status = 403
        except CoreError as error:
            form.add_error(None, error.message)
            status = 409
        else:
            messages.success(
                request,
                f"Snapshot {result.snapshot.snapshot_id} {result.outcome} "
                f"({result.snapshot.document['benchmarkCount']} benchmarks).",
            )
            return redirect(result.snapshot.get_absolute_url())
    elif request.method == "POST":
        status = 400
    page = Paginator(snapshot_list(), PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "evals/baseline_list.html",
        {"page": page, "form": form, "flags": flags},
        status=status,
    )


def _snapshot_or_404(snapshot_id: str) -> Any:
    try:
        return snapshot_get(snapshot_id=snapshot_id)
    except NotFound:
        raise Http404("no such snapshot") from None


@login_required
def baseline_detail(request: HttpRequest, snapshot_id: str) -> HttpResponse:
    """A snapshot's entries and its delta report against the latest runs."""
    row = _snapshot_or_404(snapshot_id)
    flags = harness_flags()
    entries = row.document.get("benchmarks") or []
    known_runs = set(
        Run.objects.filter(
            run_id__in=[entry.get("runId") for entry in entries]
        ).values_list("run_id", flat=True)
    )
    known_benchmarks = set(
        Benchmark.objects.filter(
            benchmark_id__in=[entry.get("benchmarkId") for entry in entries]
        ).values_list("benchmark_id", flat=True)
    )
    verdict = report = error = None
    if flags.delta_reporter_enabled:
        try:
            verdict = baseline_delta_report(snapshot_id=snapshot_id)
        except CoreError as exc:
            error = exc.message
        else:
            report = report_html(verdict_to_markdown(verdict))
    return render(
        request,
        "evals/baseline_detail.html",
        {
            "snapshot": row,
            "entries": [
                (
                    entry,
                    entry.get("benchmarkId") in known_benchmarks,
                    entry.get("runId") in known_runs,
                    metric_value_rows(entry.get("metrics") or {}),
                )
                for entry in entries
            ],
            "show_git_ref": any(entry.get("gitRef") for entry in entries),
            "flags": flags,
            "verdict": verdict,
            "report": report,
            "report_error": error,
        },
    )


@login_required
def baseline_json(request: HttpRequest, snapshot_id: str) -> HttpResponse:
    """The snapshot document, byte for byte as ``eval_store_export`` writes it."""
    row = _snapshot_or_404(snapshot_id)
    try:
        data = baseline_snapshot_bytes(row)
    except SchemaInvalid:
        raise Http404("the stored snapshot is no longer valid") from None
    return export_response(
        Export(data, "application/json", f"{snapshot_id}.json", "attachment")
    )


@login_required
def baseline_markdown(request: HttpRequest, snapshot_id: str) -> HttpResponse:
    """The delta report of the snapshot as markdown (for a PR comment)."""
    _snapshot_or_404(snapshot_id)
    try:
        verdict = baseline_delta_report(snapshot_id=snapshot_id)
    except CoreError as error:
        return HttpResponse(
            error.message + "\n", status=409, content_type="text/plain; charset=utf-8"
        )
    return export_response(
        verdict_markdown_export(
            verdict, f"{snapshot_id}-delta-report.md", disposition="attachment"
        )
    )


class UploadForm(forms.Form):
    file = forms.FileField(
        label="Pack file",
        help_text="a manifest JSON file, or a .zip / .tar.gz pack with a root "
        "manifest.json",
    )
    force = forms.BooleanField(
        label="Replace an existing pack with the same benchmarkId", required=False
    )


@login_required
@require_http_methods(["GET", "POST"])
def upload(request: HttpRequest) -> HttpResponse:
    """Upload a pack; an invalid one shows every error with its JSON path and
    is kept for staff review."""
    form = UploadForm(request.POST or None, request.FILES or None)
    context: dict[str, Any] = {"form": form, "problems": None, "upload_id": None}
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            uploaded = form.cleaned_data["file"]
            try:
                if uploaded.size > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
                    raise CoreError(
                        f"the file is larger than "
                        f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes",
                        code="too_large",
                    )
                result = benchmark_pack_upload(
                    source=uploaded,
                    filename=uploaded.name or "",
                    user=request.user,
                    force=form.cleaned_data["force"],
                )
            except SchemaInvalid as error:
                context["problems"] = error.problems
                context["upload_id"] = error.details.get("invalidUploadId")
            except CoreError as error:
                context["error"] = error.message
                if isinstance(error, Conflict):
                    status = 409
                elif isinstance(error, Forbidden):
                    status = 403
            else:
                messages.success(
                    request,
                    f"Pack {result.benchmark.benchmark_id} {result.outcome} "
                    f"({result.benchmark.case_count} cases).",
                )
                return redirect(result.benchmark.get_absolute_url())
    context["pending_uploads"] = InvalidUpload.objects.filter(
        uploaded_by=request.user, status=InvalidUpload.Status.PENDING
    ).count()
    return render(request, "evals/upload.html", context, status=status)
