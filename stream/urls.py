from django.urls import path

from stream import api, views

app_name = "stream"

urlpatterns = [
    path("stream/", views.index, name="index"),
    path("api/whoami", api.WhoAmIView.as_view(), name="api-whoami"),
]
