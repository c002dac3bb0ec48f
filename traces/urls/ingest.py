"""Routes of OTLP/HTTP ingestion (``traces.api.ingest``): the path the
OpenTelemetry exporters append to their endpoint."""

from django.urls import path

from traces.api import ingest

urlpatterns: list = [
    path("v1/traces", ingest.OtlpTracesView.as_view(), name="traces-otlp-ingest"),
]
