"""Routes: see reviews/urls/pages.py."""

urlpatterns: list = []
