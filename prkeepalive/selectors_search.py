"""Reads the search index takes from PR keepalive: each dispatch decision's
line with its pull request's page, in id order after a watermark.
Read-only."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from prkeepalive.models import Decision
from prkeepalive.selectors import pull_url_of


@dataclass(frozen=True, slots=True)
class DecisionLine:
    pk: int
    line: str
    detail: str
    ok: bool
    reason: str
    title: str
    url: str
    created_at: datetime


def decisions_after(after_id: int, limit: int) -> list[DecisionLine]:
    """Up to ``limit`` decisions with an id above ``after_id``, in id order."""
    rows = (
        Decision.objects.filter(pk__gt=after_id)
        .order_by("pk")
        .select_related("repository", "pull")
        .only(
            "pk",
            "line",
            "detail",
            "ok",
            "reason",
            "created_at",
            "repository__full_name",
            "pull__number",
        )[:limit]
    )
    found: list[DecisionLine] = []
    for row in rows:
        full_name = row.repository.full_name
        number = row.pull.number if row.pull is not None else None
        found.append(
            DecisionLine(
                pk=row.pk,
                line=row.line,
                detail=row.detail,
                ok=row.ok,
                reason=row.reason,
                title=f"{full_name}#{number}" if number else full_name,
                url=pull_url_of(full_name, number) if number else "",
                created_at=row.created_at,
            )
        )
    return found
