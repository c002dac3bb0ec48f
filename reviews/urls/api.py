"""REST routes of the reviews app (scope ``reviews`` for keys)."""

urlpatterns: list = []
