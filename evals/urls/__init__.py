"""URL patterns of the evals app (namespace ``evals``), one module per
subject: the harness, benchmarks, the dashboard."""

from evals.urls import benchmarks, dashboard, harness

app_name = "evals"

urlpatterns = [
    *harness.urlpatterns,
    *benchmarks.urlpatterns,
    *dashboard.urlpatterns,
]
