from django.urls import path

from gridworld import views

app_name = "gridworld"

urlpatterns = [
    path("gridworld/", views.index, name="index"),
]
