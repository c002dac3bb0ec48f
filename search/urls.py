"""The search app's routes: its REST API and its pages (names in the
``search`` namespace)."""

app_name = "search"

urlpatterns: list = []
