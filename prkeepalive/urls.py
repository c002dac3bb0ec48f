from django.urls import path

from prkeepalive import api, views

app_name = "prkeepalive"

_PULL = "<str:owner>/<str:name>/pull/<int:number>"
_API_PULL = "api/prkeepalive/repos/<str:owner>/<str:name>/pulls/<int:number>"

urlpatterns = [
    path("prkeepalive/", views.index, name="index"),
    path(f"prkeepalive/{_PULL}/", views.pull_detail, name="pull-detail"),
    path("api/prkeepalive/github/webhook", api.github_webhook, name="api-webhook"),
    path("api/prkeepalive/explain", api.ExplainView.as_view(), name="api-explain"),
    path(
        f"{_API_PULL}/decisions", api.PullDecisionsView.as_view(), name="api-decisions"
    ),
    path(f"{_API_PULL}/rounds", api.PullRoundsView.as_view(), name="api-rounds"),
]
