from evals import urls_benchmarks, urls_dashboard, urls_harness

app_name = "evals"

urlpatterns = [
    *urls_harness.urlpatterns,
    *urls_benchmarks.urlpatterns,
    *urls_dashboard.urlpatterns,
]
