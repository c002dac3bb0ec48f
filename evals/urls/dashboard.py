"""URLs of the dashboard pages: compare, one case side by side, trends."""

from django.urls import path

from evals.views import compare, trends

urlpatterns = [
    path("evals/compare", compare.compare, name="compare"),
    path("evals/compare/case", compare.compare_case, name="compare-case"),
    path("evals/trends", trends.trends, name="trends"),
]
