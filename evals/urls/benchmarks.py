"""URLs of benchmark packs, runs posted over REST, shadow records, baselines,
the gate, and their pages."""

from django.urls import path

from evals.api import baselines as baselines_api
from evals.api import benchmarks as api
from evals.views import benchmarks as views
from evals.views import manifest_format, shadow

urlpatterns = [
    path("benchmarks/", views.benchmark_list, name="benchmark-list"),
    path("benchmarks/upload", views.upload, name="upload"),
    path(
        "benchmarks/upload/manifest-format",
        manifest_format.manifest_format,
        name="manifest-format",
    ),
    path(
        "benchmarks/upload/manifest.v1.schema.json",
        manifest_format.manifest_schema,
        name="manifest-schema",
    ),
    path(
        "benchmarks/<str:benchmark_id>/",
        views.benchmark_detail,
        name="benchmark-detail",
    ),
    path(
        "benchmarks/<str:benchmark_id>/manifest.json",
        views.benchmark_manifest,
        name="benchmark-manifest",
    ),
    path("shadow/", shadow.shadow_list, name="shadow-list"),
    path("shadow/<str:trace_id>/", shadow.shadow_detail, name="shadow-detail"),
    path("baselines/", views.baseline_list, name="baseline-list"),
    path("baselines/<str:snapshot_id>/", views.baseline_detail, name="baseline-detail"),
    path(
        "baselines/<str:snapshot_id>/snapshot.json",
        views.baseline_json,
        name="baseline-json",
    ),
    path(
        "baselines/<str:snapshot_id>/report.md",
        views.baseline_markdown,
        name="baseline-markdown",
    ),
    path(
        "api/benchmarks/packs",
        api.BenchmarkPackListCreateView.as_view(),
        name="api-benchmark-packs",
    ),
    path(
        "api/benchmarks/packs/<str:benchmark_id>",
        api.BenchmarkPackDetailView.as_view(),
        name="api-benchmark-pack-detail",
    ),
    path(
        "api/benchmarks/runs",
        api.BenchmarkRunListCreateView.as_view(),
        name="api-benchmark-runs",
    ),
    path(
        "api/benchmarks/runs/<str:run_id>",
        api.BenchmarkRunDetailView.as_view(),
        name="api-benchmark-run-detail",
    ),
    path(
        "api/benchmarks/shadow",
        api.ShadowRecordListCreateView.as_view(),
        name="api-benchmark-shadow",
    ),
    path(
        "api/benchmarks/shadow/<str:trace_id>",
        api.ShadowRecordDetailView.as_view(),
        name="api-benchmark-shadow-detail",
    ),
    path(
        "api/benchmarks/baselines",
        baselines_api.BaselineSnapshotListCreateView.as_view(),
        name="api-benchmark-baselines",
    ),
    path(
        "api/benchmarks/baselines/<str:snapshot_id>",
        baselines_api.BaselineSnapshotDetailView.as_view(),
        name="api-benchmark-baseline-detail",
    ),
    path(
        "api/benchmarks/gate",
        baselines_api.BenchmarkGateView.as_view(),
        name="api-benchmark-gate",
    ),
]
