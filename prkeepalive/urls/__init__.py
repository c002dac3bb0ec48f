from django.urls import path

from prkeepalive.api import records, webhook
from prkeepalive.views import pulls as views

app_name = "prkeepalive"

_PULL = "<str:owner>/<str:name>/pull/<int:number>"
_API_PULL = "api/prkeepalive/repos/<str:owner>/<str:name>/pulls/<int:number>"

urlpatterns = [
    path("prkeepalive/", views.index, name="index"),
    path(f"prkeepalive/{_PULL}/", views.pull_detail, name="pull-detail"),
    path("api/prkeepalive/github/webhook", webhook.github_webhook, name="api-webhook"),
    path("api/prkeepalive/explain", records.ExplainView.as_view(), name="api-explain"),
    path(
        f"{_API_PULL}/decisions",
        records.PullDecisionsView.as_view(),
        name="api-decisions",
    ),
    path(f"{_API_PULL}/rounds", records.PullRoundsView.as_view(), name="api-rounds"),
]
