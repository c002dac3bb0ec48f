"""Pages of the shadow recall records (posted to ``POST /api/benchmarks/shadow``):
the list, filtered by day and session, and one record as posted."""

from __future__ import annotations

import json
from datetime import date

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import urlencode

from evals.selectors.baselines import shadow_record_list
from evals.selectors.keyset_pages import newest_first_page
from evals.views.paging import page_from, page_links

PER_PAGE = 50


def _day(text: str) -> str | None:
    """``YYYY-MM-DD`` or ``None`` (the API's rule for ``day``)."""
    try:
        date.fromisoformat(text)
    except ValueError:
        return None
    return text if len(text) == 10 else None


@login_required
def shadow_list(request: HttpRequest) -> HttpResponse:
    """Shadow records, newest first, in keyset pages of 50 (``after``,
    ``before``); ``?day=`` and ``?session=``."""
    day_text = request.GET.get("day", "").strip()
    session = request.GET.get("session", "").strip()
    day = _day(day_text) if day_text else None
    error = (
        f"'{day_text[:40]}' is not a day: write it YYYY-MM-DD."
        if day_text and day is None
        else ""
    )
    records = shadow_record_list(day=day, session_key=session or None)
    page = page_from(
        request,
        lambda **at: newest_first_page(
            records, time_field="recorded_at", size=PER_PAGE, **at
        ),
    )
    kept = [(k, v) for k, v in (("day", day or ""), ("session", session)) if v]
    return render(
        request,
        "evals/shadow_list.html",
        {
            "page": page,
            "links": page_links(page, kept),
            "day": day_text,
            "session": session,
            "error": error,
            "query": urlencode(kept),
        },
        status=400 if error else 200,
    )


@login_required
def shadow_detail(request: HttpRequest, trace_id: str) -> HttpResponse:
    """One record as it was posted (the API's ``GET shadow/<traceId>``)."""
    record = shadow_record_list().filter(trace_id=trace_id).first()
    if record is None:
        raise Http404("no shadow record with this trace id")
    return render(
        request,
        "evals/shadow_detail.html",
        {
            "record": record,
            "document": record.document,
            "document_json": json.dumps(record.document, indent=2, ensure_ascii=False),
        },
    )
