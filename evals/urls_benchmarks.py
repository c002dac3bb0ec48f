"""URLs of benchmark packs, runs posted over REST, shadow records, baselines, gate."""

from django.urls import path

from evals.views import benchmarks as views

urlpatterns = [
    path("benchmarks/", views.benchmark_list, name="benchmark-list"),
    path("baselines/", views.baseline_list, name="baseline-list"),
]
