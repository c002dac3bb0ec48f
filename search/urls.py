"""The search app's routes: its REST API and its pages (names in the
``search`` namespace)."""

from django.urls import path

from search import api, views

app_name = "search"

urlpatterns: list = [
    path("api/search", api.SearchView.as_view(), name="api-search"),
    path("search/", views.search, name="search"),
    path("search/saved", views.saved_create, name="saved-create"),
    path("search/saved/<int:pk>/delete", views.saved_delete, name="saved-delete"),
]
