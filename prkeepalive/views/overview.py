"""The PR keepalive tile of the overview page (``evalsite.overview``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils import timezone

from prkeepalive.selectors import keepalive_overview


def overview_context(request: HttpRequest) -> dict[str, Any]:
    """What ``prkeepalive/overview_tile.html`` reads."""
    return {"keepalive": keepalive_overview(now=timezone.now())}
