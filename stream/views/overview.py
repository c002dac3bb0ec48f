"""The stream health tile of the overview page (``evalsite.overview``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone

from stream.selectors import agent_list_visible
from stream.services.stream_health import stream_health


def overview_context(request: HttpRequest) -> dict[str, Any]:
    """What ``stream/overview_tile.html`` reads: the health of the active
    agents the user may see."""
    agents = agent_list_visible(user=request.user).filter(is_active=True)
    return {"stream": stream_health(agents=agents, now=timezone.now())}
