"""URL patterns of planning: the executor task API and the task pages.

Included by ``stream.urls`` (namespace ``stream``).
"""

from django.urls import path

from stream.api import planning as api
from stream.views import planning as views

urlpatterns = [
    path("api/tasks", api.TaskListView.as_view(), name="api-tasks"),
    path("api/tasks/claim", api.TaskClaimView.as_view(), name="api-task-claim"),
    path("api/tasks/<int:pk>", api.TaskDetailView.as_view(), name="api-task-detail"),
    path(
        "api/tasks/<int:pk>/progress",
        api.TaskProgressView.as_view(),
        name="api-task-progress",
    ),
    path(
        "api/tasks/<int:pk>/complete",
        api.TaskCompleteView.as_view(),
        name="api-task-complete",
    ),
    path(
        "api/tasks/<int:pk>/fail",
        api.TaskFailView.as_view(),
        name="api-task-fail",
    ),
    path("stream/<slug:name>/tasks/", views.agent_tasks, name="task-list"),
    path(
        "stream/<slug:name>/tasks/<int:pk>/",
        views.task_detail,
        name="task-detail",
    ),
]
