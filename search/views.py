"""The search page (login required, like every page): a query box with
filters, highlighted hits linked to their pages, older pages by cursor, and
the user's saved searches (save the current search, apply one, delete one).

Thin: queries are parsed by ``search.core``, documents read by
``search.selectors``, saved searches written by ``search.services.saved``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from core.errors import NotFound
from search.core.filters import FILTER_NAMES, KINDS, cursor_encode, parse_filters
from search.core.query import MAX_QUERY_CHARS, QueryInvalid, parse
from search.selectors import KIND_LABELS, documents_visible, saved_searches, search_page
from search.services.saved import saved_search_create, saved_search_delete

LABELS = {
    "q": "Search for",
    "agent": "Agent",
    "run": "Run",
    "suite": "Suite or pack",
    "kind": "What",
    "since": "From",
    "until": "Before",
    "eligible": "Actionable",
    "flag": "Flag",
    "score": "Score name",
    "score_min": "Score at least",
    "score_max": "Score at most",
    "cursor": "Page",
    "limit": "Per page",
    "name": "Name",
}


def _params(request: HttpRequest) -> dict[str, str]:
    names = ("q", *FILTER_NAMES, "cursor")
    return {n: request.GET.get(n, "")[:1000] for n in names}


def _page_url(params: dict[str, str], **changes: str) -> str:
    merged = {**params, **changes}
    return (
        reverse("search:search")
        + "?"
        + urlencode({k: v for k, v in merged.items() if v})
    )


@login_required
@require_GET
def search(request: HttpRequest) -> HttpResponse:
    params = _params(request)
    errors: dict[str, str] = {}
    hits: list[Any] = []
    next_url = ""
    searched = bool(params["q"].strip())
    if searched:
        try:
            query = parse(params["q"])
        except QueryInvalid as exc:
            errors["q"] = exc.reason
        filters = parse_filters(params)
        errors.update(filters.problems)
        if not errors:
            found, after = search_page(
                documents_visible(user=request.user), query, filters
            )
            hits = [
                {"hit": h, "snippet": mark_safe(h.snippet)}  # noqa: S308 - escaped, <mark> only
                for h in found
            ]
            if after is not None:
                next_url = _page_url(params, cursor=cursor_encode(*after))
    context = {
        "params": params,
        "errors": [(LABELS.get(k, k), v) for k, v in sorted(errors.items())],
        "error_fields": set(errors),
        "hits": hits,
        "searched": searched,
        "filtered": any(params[n] for n in FILTER_NAMES),
        "next_url": next_url,
        "first_url": _page_url(params, cursor="") if params["cursor"] else "",
        "kinds": [(k, KIND_LABELS[k]) for k in KINDS],
        "saved": [
            {"item": s, "url": _page_url({"q": s.query, **s.filters})}
            for s in saved_searches(user=request.user)
        ],
        "max_query": MAX_QUERY_CHARS,
    }
    return render(request, "search/search.html", context, status=400 if errors else 200)


@login_required
@require_POST
def saved_create(request: HttpRequest) -> HttpResponse:
    params = {n: request.POST.get(n, "")[:1000] for n in ("q", *FILTER_NAMES)}
    try:
        saved = saved_search_create(
            owner=request.user,
            name=request.POST.get("name", "")[:1000],
            query=params["q"],
            params=params,
        )
    except QueryInvalid as exc:
        messages.error(
            request, f"Not saved: {LABELS.get(exc.field, exc.field)}: {exc.reason}"
        )
    else:
        messages.success(request, f"Saved as {saved.name!r}.")
    return HttpResponseRedirect(_page_url(params))


@login_required
@require_POST
def saved_delete(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        saved_search_delete(saved_search_id=pk, user=request.user)
    except NotFound:
        messages.error(request, "That saved search is not yours or no longer exists.")
    else:
        messages.success(request, "Saved search deleted.")
    return HttpResponseRedirect(reverse("search:search"))
