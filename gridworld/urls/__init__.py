"""URLs of the gridworld (pages and REST)."""

from django.urls import path

from gridworld.api import batches as api
from gridworld.views import batch_figures
from gridworld.views import batches as views

app_name = "gridworld"

urlpatterns = [
    path("gridworld/", views.index, name="index"),
    path("gridworld/batches/<int:pk>/", views.batch_detail, name="batch-detail"),
    path(
        "gridworld/batches/<int:pk>/compare/<int:other>/",
        batch_figures.batch_compare,
        name="batch-compare",
    ),
    path("gridworld/runs/<str:run_id>/", views.run_batch, name="run-batch"),
    path(
        "gridworld/runs/<str:run_id>/episodes/<int:index>/",
        views.run_episode,
        name="run-episode",
    ),
    path(
        "gridworld/batches/<int:pk>/episodes/<int:index>/",
        views.episode_detail,
        name="episode-detail",
    ),
    path(
        "api/gridworld/batches", api.BatchListCreateView.as_view(), name="api-batches"
    ),
    path(
        "api/gridworld/batches/<int:pk>",
        api.BatchDetailView.as_view(),
        name="api-batch-detail",
    ),
    path(
        "api/gridworld/batches/<int:pk>/episodes",
        api.EpisodeListView.as_view(),
        name="api-episodes",
    ),
    path(
        "api/gridworld/batches/<int:pk>/episodes/<int:index>",
        api.EpisodeDetailView.as_view(),
        name="api-episode-detail",
    ),
    path(
        "api/gridworld/batches/<int:pk>/episodes/<int:index>/receipt",
        api.EpisodeReceiptView.as_view(),
        name="api-episode-receipt",
    ),
    path("api/gridworld/verify", api.ReceiptVerifyView.as_view(), name="api-verify"),
]
