"""Routes: see traces/urls/__init__.py. The pages' names are in the
``traces`` namespace (``traces:span-list``); a trace id is 32 hex digits,
so no other page under ``traces/`` is ever taken for a trace."""

from django.urls import path, re_path

from traces.views import prices as price_views
from traces.views import traces as views

app_name = "traces"

urlpatterns: list = [
    path("traces/prices/", price_views.unknown_models, name="unknown-models"),
    path("traces/", views.span_list, name="span-list"),
    re_path(
        r"^traces/(?P<trace_id>[0-9a-f]{32})/$",
        views.trace_detail,
        name="trace-detail",
    ),
]
