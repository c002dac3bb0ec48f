"""Routes of the spans and traces REST API (``traces.api.spans``)."""

from django.urls import path

from traces.api import spans

urlpatterns: list = [
    path("api/spans", spans.SpanListView.as_view(), name="traces-api-spans"),
    path("api/spans/<int:pk>", spans.SpanDetailView.as_view(), name="traces-api-span"),
    path(
        "api/traces/<str:trace_id>",
        spans.TraceDetailView.as_view(),
        name="traces-api-trace",
    ),
]
