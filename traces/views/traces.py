"""The span list and the trace view (login required, like every page).

Thin: reads come from ``traces.selectors``, a harness case's texts from
``evals.facade`` (they live in the scenario artifact, not in the span);
what a row shows is built in ``traces.views.rows``.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import urlencode

from traces import selectors
from traces.core.records import SOURCES, STATUSES
from traces.core.waterfall import WaterfallSpan, waterfall
from traces.views.rows import CaseTextsCache, list_row, trace_summary, waterfall_row

# A trace page draws at most this many spans (the earliest).
MAX_SPANS_SHOWN = 500

FILTER_FIELDS = ("model", "agent", "run", "case", "source", "status", "since", "until")


class SpanFilterForm(forms.Form):
    model = forms.CharField(required=False, max_length=200)
    agent = forms.ChoiceField(required=False, choices=[("", "any")])
    run = forms.CharField(required=False, max_length=200)
    case = forms.CharField(required=False, max_length=300, label="Scenario")
    source = forms.ChoiceField(
        required=False, choices=[("", "any")] + [(s, s) for s in SOURCES]
    )
    status = forms.ChoiceField(
        required=False, choices=[("", "any")] + [(s, s) for s in STATUSES]
    )
    since = forms.DateTimeField(
        required=False,
        label="From",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    until = forms.DateTimeField(
        required=False,
        label="To",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )

    def __init__(self, *args: Any, agents: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        agent = cast(forms.ChoiceField, self.fields["agent"])
        agent.choices = [("", "any")] + [(name, name) for name in agents]

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        since, until = data.get("since"), data.get("until")
        if since and until and since >= until:
            self.add_error("until", "must be later than From")
        return data


@login_required
def span_list(request: HttpRequest) -> HttpResponse:
    """Spans newest first, filtered; a keyset page of 50 (``after``)."""
    form = SpanFilterForm(
        request.GET or None, agents=selectors.agent_names_visible(user=request.user)
    )
    if form.is_bound and not form.is_valid():
        return render(
            request,
            "traces/span_list.html",
            {"form": form, "rows": [], "next_url": "", "filtered": True},
            status=400,
        )
    data = form.cleaned_data if form.is_bound else {}
    filters = selectors.SpanFilters(
        **{
            k: data.get(k) or ("" if k not in ("since", "until") else None)
            for k in FILTER_FIELDS
        }
    )
    page = selectors.span_list(
        user=request.user, filters=filters, cursor=request.GET.get("after", "")
    )
    kept = [(k, request.GET[k]) for k in FILTER_FIELDS if request.GET.get(k)]
    next_url = (
        "?" + urlencode([*kept, ("after", page.next_cursor)])
        if page.next_cursor
        else ""
    )
    return render(
        request,
        "traces/span_list.html",
        {
            "form": form,
            "rows": [list_row(span) for span in page.spans],
            "next_url": next_url,
            "first_url": "?" + urlencode(kept) if kept else "?",
            "is_later_page": bool(request.GET.get("after")),
            "filtered": bool(kept),
        },
    )


@login_required
def trace_detail(request: HttpRequest, trace_id: str) -> HttpResponse:
    """A trace's waterfall and each span in full."""
    spans = selectors.trace_visible_spans(
        user=request.user, trace_id=trace_id, limit=MAX_SPANS_SHOWN + 1
    )
    if not spans:
        raise Http404("no such trace")
    cut = len(spans) > MAX_SPANS_SHOWN
    spans = spans[:MAX_SPANS_SHOWN]
    laid = waterfall(
        [
            WaterfallSpan(s.span_id, s.parent_span_id, s.started_at, s.ended_at)
            for s in spans
        ]
    )
    cache: CaseTextsCache = {}
    rows = [waterfall_row(spans[r.index], r, cache=cache) for r in laid.rows]
    return render(
        request,
        "traces/trace_detail.html",
        {
            "trace_id": trace_id,
            "rows": rows,
            "summary": trace_summary(spans, total_ms=laid.total_ms),
            "cut": cut,
            "max_spans": MAX_SPANS_SHOWN,
        },
    )
