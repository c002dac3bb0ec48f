"""URL patterns of the cognitive stream: the stream pages and its API."""

from django.urls import path

from stream.api import cognitive_stream as api
from stream.views import cognitive_stream as views

API = "api/cognitive-stream/"

urlpatterns = [
    path("stream/", views.index, name="index"),
    path("stream/<slug:name>/", views.agent_stream, name="agent"),
    path("stream/<slug:name>/live", views.agent_stream_live, name="agent-live"),
    path(
        "stream/<slug:name>/thoughts/<int:pk>/",
        views.thought_detail,
        name="thought-detail",
    ),
    path("api/whoami", api.WhoAmIView.as_view(), name="api-whoami"),
    path(f"{API}percepts", api.PerceptView.as_view(), name="api-percepts"),
    path(f"{API}thoughts", api.ThoughtPublishView.as_view(), name="api-thoughts"),
    path(f"{API}recent", api.RecentView.as_view(), name="api-recent"),
    path(f"{API}actionable", api.ActionableView.as_view(), name="api-actionable"),
    path(f"{API}ack", api.AckView.as_view(), name="api-ack"),
    path(f"{API}poke", api.PokeView.as_view(), name="api-poke"),
    path(f"{API}counters", api.CountersView.as_view(), name="api-counters"),
    path(
        f"{API}counters/reset",
        api.CountersResetView.as_view(),
        name="api-counters-reset",
    ),
    path(f"{API}events", api.EventsView.as_view(), name="api-events"),
]
