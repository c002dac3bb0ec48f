from django.urls import path

from prkeepalive import views

app_name = "prkeepalive"

urlpatterns = [
    path("prkeepalive/", views.index, name="index"),
]
