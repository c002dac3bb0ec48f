"""The reviews app's routes: its REST API and its pages (names in the
``reviews`` namespace)."""

app_name = "reviews"

urlpatterns: list = []
