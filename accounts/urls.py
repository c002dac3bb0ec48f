"""Pages of the accounts app, in the ``accounts`` namespace."""

from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("audit/", views.audit_log, name="audit-log"),
]
