"""What a review queue reads of PR keepalive: the ids of the decisions made
in a time range, whatever their pull request. Reads only."""

from __future__ import annotations

from datetime import datetime

from prkeepalive.models import Decision


def decision_ids_in_range(
    *, since: datetime | None, until: datetime | None, limit: int
) -> list[int]:
    """The ids of the decisions made at or after ``since`` and before
    ``until`` (either None: open on that side), newest first, at most
    ``limit``."""
    found = Decision.objects.all()
    if since is not None:
        found = found.filter(created_at__gte=since)
    if until is not None:
        found = found.filter(created_at__lt=until)
    ordered = found.order_by("-created_at", "-pk").values_list("pk", flat=True)
    return list(ordered[: max(0, limit)])
