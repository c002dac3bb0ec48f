"""URL patterns of planning: the executor task API and the task pages.

Included into ``stream.urls`` (namespace ``stream``).
"""

from django.urls import path

from stream import api_tasks, views_tasks

urlpatterns = [
    path("api/tasks", api_tasks.TaskListView.as_view(), name="api-tasks"),
    path("api/tasks/claim", api_tasks.TaskClaimView.as_view(), name="api-task-claim"),
    path(
        "api/tasks/<int:pk>", api_tasks.TaskDetailView.as_view(), name="api-task-detail"
    ),
    path(
        "api/tasks/<int:pk>/progress",
        api_tasks.TaskProgressView.as_view(),
        name="api-task-progress",
    ),
    path(
        "api/tasks/<int:pk>/complete",
        api_tasks.TaskCompleteView.as_view(),
        name="api-task-complete",
    ),
    path(
        "api/tasks/<int:pk>/fail",
        api_tasks.TaskFailView.as_view(),
        name="api-task-fail",
    ),
    path("stream/<slug:name>/tasks/", views_tasks.agent_tasks, name="task-list"),
    path(
        "stream/<slug:name>/tasks/<int:pk>/",
        views_tasks.task_detail,
        name="task-detail",
    ),
]
