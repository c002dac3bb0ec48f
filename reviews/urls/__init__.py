"""The reviews app's routes: the REST API (``/api/reviews/``) and the pages
(names in the ``reviews`` namespace: ``reviews:queue-list``)."""

from django.urls import include, path

urlpatterns: list = [
    path("", include("reviews.urls.api")),
    path("", include("reviews.urls.pages")),
]
