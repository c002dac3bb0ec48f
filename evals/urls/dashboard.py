"""URLs of the dashboard pages: compare, one case side by side, trends."""

from django.urls import path

from evals.views import dashboard as views

urlpatterns = [
    path("evals/compare", views.compare, name="compare"),
    path("evals/compare/case", views.compare_case, name="compare-case"),
    path("evals/trends", views.trends, name="trends"),
]
