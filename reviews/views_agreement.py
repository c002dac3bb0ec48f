"""Agreement and calibration pages: how far reviewers agree on each score
config, and where people and the automatic checks disagree. Thin: the
figures are ``reviews.services.agreement`` and
``reviews.services.calibration``; every figure is read over the scores the
person may read, of one queue when ``?queue=`` names one they may open."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from core.errors import NotFound
from reviews.core.agreement import Agreement, alpha_words, kappa_words
from reviews.models import ReviewQueue, ScoreConfig
from reviews.selectors import queue_get, queues_visible
from reviews.services.agreement import (
    ConfigAgreement,
    agreement_scores,
    config_agreement_of,
    config_agreements,
)
from reviews.services.calibration import config_calibration

# Disagreements listed per check; the rest are counted.
DISAGREEMENTS_SHOWN = 200


def _queue_of(request: HttpRequest) -> ReviewQueue | None:
    """The queue ``?queue=`` names, if the person may open it; 404 for a
    malformed id or any other queue, as for one that does not exist."""
    raw = request.GET.get("queue", "").strip()
    if not raw:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        raise Http404("no such review queue")
    try:
        return queue_get(user=request.user, pk=int(raw))
    except NotFound:
        raise Http404("no such review queue") from None


def figure(found: Agreement | None, words: Any) -> dict[str, Any] | None:
    """A figure as the templates show it: the number to three places and
    its reading, or a dash with why there is none; None: not applicable."""
    if found is None:
        return None
    if found.value is None:
        return {"shown": "—", "words": "", "reason": found.reason, "items": found.items}
    return {
        "shown": f"{found.value:.3f}",
        "words": words(found.value),
        "reason": "",
        "items": found.items,
    }


def _row(found: ConfigAgreement) -> dict[str, Any]:
    return {
        "config": found.config,
        "subjects": found.subjects,
        "givers": found.givers,
        "scores": found.scores,
        "kappa": figure(found.kappa, kappa_words),
        "kappa_quadratic": figure(found.kappa_quadratic, kappa_words),
        "alpha_nominal": figure(found.alpha_nominal, alpha_words),
        "alpha_interval": figure(found.alpha_interval, alpha_words),
    }


@login_required
def agreement_list(request: HttpRequest) -> HttpResponse:
    """Every score config version with scores, and how far its reviewers agree."""
    queue = _queue_of(request)
    scores = agreement_scores(user=request.user, queue=queue)
    rows = [_row(found) for found in config_agreements(scores)]
    return render(
        request,
        "reviews/agreement.html",
        {
            "rows": rows,
            "queue": queue,
            "queues": list(queues_visible(user=request.user).order_by("name", "pk")),
        },
    )


@login_required
def agreement_detail(request: HttpRequest, name: str, version: int) -> HttpResponse:
    """One config version: its agreement figures, and per automatic check
    the confusion table and the disagreements, linked to the scenarios."""
    # A version past the column's range names nothing (and would make some
    # databases refuse the query).
    config = (
        ScoreConfig.objects.filter(name=name, version=version).first()
        if version < 2**31
        else None
    )
    if config is None:
        raise Http404("no such score config")
    queue = _queue_of(request)
    scores = agreement_scores(user=request.user, queue=queue)
    calibration = config_calibration(config, scores)
    tables = [
        {
            "title": table.title,
            "check": table.table.check,
            "columns": table.table.columns,
            "rows": [
                (
                    row,
                    [
                        (
                            table.table.count(row, column),
                            (row, column) in table.table.disagreeing,
                        )
                        for column in table.table.columns
                    ],
                )
                for row in table.table.rows
            ],
            "total": table.table.total,
            "agreement": table.table.agreement,
            "disagreements": table.disagreements[:DISAGREEMENTS_SHOWN],
            "more": max(0, len(table.disagreements) - DISAGREEMENTS_SHOWN),
        }
        for table in calibration.tables
    ]
    return render(
        request,
        "reviews/agreement_detail.html",
        {
            "config": config,
            "queue": queue,
            "row": _row(config_agreement_of(config, scores)),
            "calibration": calibration,
            "tables": tables,
        },
    )
