from django.urls import path

from evals import views

app_name = "evals"

urlpatterns = [
    path("evals/", views.index, name="index"),
    path("benchmarks/", views.benchmark_list, name="benchmark-list"),
    path("baselines/", views.baseline_list, name="baseline-list"),
]
