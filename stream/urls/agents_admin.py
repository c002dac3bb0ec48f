"""URL patterns of the agents-and-keys pages.

Included by ``stream.urls`` (namespace ``stream``).
"""

from django.urls import path

from stream.views import agents_admin as views

urlpatterns = [
    path("agents/", views.agents_manage, name="agents-manage"),
    path("agents/<slug:name>/", views.agent_manage, name="agent-manage"),
    path("agents/<slug:name>/keys/<int:pk>/", views.agent_key, name="agent-key"),
    path(
        "agents/<slug:name>/keys/<int:pk>/revoke",
        views.agent_key_revoke_page,
        name="agent-key-revoke",
    ),
    path(
        "agents/<slug:name>/keys/<int:pk>/rotate",
        views.agent_key_rotate_page,
        name="agent-key-rotate",
    ),
]
