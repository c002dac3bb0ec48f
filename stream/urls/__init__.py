"""URL patterns of the stream app (namespace ``stream``): the cognitive
stream's pages and API, then planning's task API and pages."""

from stream.urls import cognitive_stream, planning

app_name = "stream"

urlpatterns = [*cognitive_stream.urlpatterns, *planning.urlpatterns]
