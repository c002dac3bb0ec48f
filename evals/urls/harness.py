"""URLs of the scenario eval harness (pages and REST)."""

from django.urls import path

from evals.api import harness as api
from evals.views import harness as views

urlpatterns = [
    path("evals/", views.index, name="index"),
    path("evals/suites/<str:suite_id>/", views.suite_detail, name="suite-detail"),
    path("evals/runs/", views.run_list, name="run-list"),
    path("evals/runs/new", views.run_new, name="run-new"),
    path("evals/runs/<str:run_id>/", views.run_detail, name="run-detail"),
    path(
        "evals/runs/<str:run_id>/scenarios/<str:case_id>/",
        views.scenario_detail,
        name="scenario-detail",
    ),
    path(
        "evals/runs/<str:run_id>/artifacts/<path:name>",
        views.run_artifact,
        name="run-artifact",
    ),
    path("api/evals/runs", api.EvalRunListCreateView.as_view(), name="api-runs"),
    path(
        "api/evals/runs/<str:run_id>",
        api.EvalRunDetailView.as_view(),
        name="api-run-detail",
    ),
    path("api/evals/suites", api.EvalSuiteListView.as_view(), name="api-suites"),
]
