"""The traces app's routes: OTLP ingestion, the REST API and the pages."""

from django.urls import include, path

urlpatterns: list = [
    path("", include("traces.urls.ingest")),
    path("", include("traces.urls.api")),
    path("", include("traces.urls.pages")),
]
