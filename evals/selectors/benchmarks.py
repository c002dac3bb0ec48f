"""Reads of benchmarks: lists, one by id, suites that have run, uploads to review."""

from __future__ import annotations

from django.db.models import (
    Count,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)

from core.errors import NotFound
from evals.models import (
    Benchmark,
    InvalidUpload,
    Run,
)

# What lists never read: a pack's manifest (up to 16 MiB of cases) and an
# upload's text. Extra files are rows of their own (``PackFile``), their bytes
# in the pack file store.
LIST_DEFERRED = ("manifest",)
UPLOAD_LIST_DEFERRED = ("raw", "errors")


def benchmark_get(*, benchmark_id: str) -> Benchmark:
    benchmark = Benchmark.objects.filter(benchmark_id=benchmark_id).first()
    if benchmark is None:
        raise NotFound(
            f"no benchmark {benchmark_id!r}", details={"benchmarkId": benchmark_id}
        )
    return benchmark


def benchmark_list(
    *,
    kind: str | None = None,
    benchmark_type: str | None = None,
    tag: str | None = None,
) -> QuerySet[Benchmark]:
    """Benchmarks of every kind (packs, suites, gridworld configurations),
    by id, each annotated with ``run_count`` and ``latest_run_pk`` (its
    newest run by start); filtered by kind, type and tag."""
    newest = Run.objects.filter(benchmark=OuterRef("pk")).order_by("-started_at", "-pk")
    benchmarks = Benchmark.objects.defer(*LIST_DEFERRED).annotate(
        run_count=Count("runs"), latest_run_pk=Subquery(newest.values("pk")[:1])
    )
    if kind:
        benchmarks = benchmarks.filter(kind=kind)
    if benchmark_type:
        benchmarks = benchmarks.filter(benchmark_type=benchmark_type)
    if tag:
        # JSON containment lookups are Postgres-only; tag lists are short.
        tagged = [
            pk
            for pk, tags in benchmarks.values_list("pk", "tags")
            if isinstance(tags, list) and tag in tags
        ]
        benchmarks = benchmarks.filter(pk__in=tagged)
    return benchmarks.order_by("benchmark_id")


def benchmark_tags() -> list[str]:
    """Every tag any benchmark carries, sorted."""
    found: set[str] = set()
    for tags in Benchmark.objects.values_list("tags", flat=True):
        if isinstance(tags, list):
            found.update(tag for tag in tags if isinstance(tag, str))
    return sorted(found)


def benchmark_choices() -> list[tuple[str, str]]:
    return list(
        Benchmark.objects.order_by("benchmark_id").values_list("benchmark_id", "kind")
    )


def latest_runs(
    *, kind: str | None = None, search: str | None = None
) -> QuerySet[Benchmark]:
    """Benchmarks with the pk of their latest run of any status
    (``latest_run_pk``) and their run count, the most recently started run
    first; benchmarks that never ran come last."""
    newest = Run.objects.filter(benchmark=OuterRef("pk")).order_by("-started_at", "-pk")
    benchmarks = Benchmark.objects.defer(*LIST_DEFERRED).annotate(
        latest_run_pk=Subquery(newest.values("pk")[:1], output_field=IntegerField()),
        latest_started_at=Subquery(newest.values("started_at")[:1]),
        run_count=Count("runs"),
    )
    if kind:
        benchmarks = benchmarks.filter(kind=kind)
    if search:
        benchmarks = benchmarks.filter(
            Q(benchmark_id__icontains=search) | Q(title__icontains=search)
        )
    return benchmarks.order_by(
        F("latest_started_at").desc(nulls_last=True), "benchmark_id"
    )


def suite_benchmarks() -> QuerySet[Benchmark]:
    """Suites that have been run, with their versions prefetched."""
    return Benchmark.objects.filter(kind=Benchmark.Kind.SUITE).prefetch_related(
        "suite_versions"
    )


def suite_get(*, suite_id: str) -> Benchmark:
    benchmark = suite_benchmarks().filter(benchmark_id=suite_id).first()
    if benchmark is None:
        raise NotFound(f"no suite {suite_id!r} has been run yet", code="not_found")
    return benchmark


def invalid_uploads_pending(limit: int) -> tuple[int, list[InvalidUpload]]:
    """How many invalid uploads wait for review, and the newest ``limit``."""
    pending = InvalidUpload.objects.filter(status=InvalidUpload.Status.PENDING).defer(
        *UPLOAD_LIST_DEFERRED
    )
    return pending.count(), list(pending.order_by("-created_at", "-pk")[:limit])


def benchmark_kinds() -> list[tuple[str, str]]:
    """Every kind of benchmark as ``(value, label)``, for filters."""
    return list(Benchmark.Kind.choices)
