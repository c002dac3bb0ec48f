"""Routes: see reviews/urls/pages.py. Review queues and a reviewer's
sitting under ``reviews/``, score configs under ``reviews/configs/``."""

from django.urls import path

from reviews.views import configs, queues, sitting

urlpatterns: list = [
    path("reviews/", queues.queue_list, name="queue-list"),
    path("reviews/queues/new", queues.queue_new, name="queue-new"),
    path("reviews/queues/<int:pk>/", queues.queue_detail, name="queue-detail"),
    path("reviews/queues/<int:pk>/review/", sitting.review, name="review"),
    path("reviews/queues/<int:pk>/fill", queues.queue_fill_page, name="queue-fill"),
    path(
        "reviews/queues/<int:pk>/reviewers",
        queues.queue_members_page,
        name="queue-members",
    ),
    path("reviews/configs/", configs.config_list, name="config-list"),
    path("reviews/configs/new", configs.config_new, name="config-new"),
    path("reviews/configs/<slug:name>/", configs.config_detail, name="config-detail"),
    path(
        "reviews/configs/<slug:name>/version",
        configs.config_version_new,
        name="config-version-new",
    ),
    path(
        "reviews/configs/<slug:name>/attach",
        configs.config_attach_page,
        name="config-attach",
    ),
]
