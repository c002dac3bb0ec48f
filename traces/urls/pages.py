"""Routes: see traces/urls/__init__.py."""

urlpatterns: list = []
