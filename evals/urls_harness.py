"""URLs of the scenario eval harness (pages and REST)."""

from django.urls import path

from evals.views import harness as views

urlpatterns = [
    path("evals/", views.index, name="index"),
]
