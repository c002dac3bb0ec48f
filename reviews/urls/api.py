"""REST routes of the reviews app (scope ``reviews`` for keys): see
``reviews.api``."""

from django.urls import path

from reviews import api

urlpatterns: list = [
    path(
        "api/reviews/configs",
        api.ConfigListView.as_view(),
        name="reviews-api-configs",
    ),
    path("api/reviews/scores", api.ScoreListView.as_view(), name="reviews-api-scores"),
    path(
        "api/reviews/scores/<int:pk>",
        api.ScoreDetailView.as_view(),
        name="reviews-api-score",
    ),
]
