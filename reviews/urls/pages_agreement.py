"""Routes: see reviews/urls/pages.py. How far reviewers agree, and people
against the automatic checks, under ``reviews/agreement/``."""

from django.urls import path

from reviews import views_agreement

urlpatterns: list = [
    path("reviews/agreement/", views_agreement.agreement_list, name="agreement"),
    path(
        "reviews/agreement/<slug:name>/v<int:version>/",
        views_agreement.agreement_detail,
        name="agreement-detail",
    ),
]
