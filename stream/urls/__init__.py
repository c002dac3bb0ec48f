"""URL patterns of the stream app (namespace ``stream``): the cognitive
stream's pages and API, planning's task API and pages, then the pages that
manage agents and their keys."""

from stream.urls import agents_admin, cognitive_stream, planning

app_name = "stream"

urlpatterns = [
    *cognitive_stream.urlpatterns,
    *planning.urlpatterns,
    *agents_admin.urlpatterns,
]
