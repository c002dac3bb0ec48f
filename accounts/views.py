"""Pages of the accounts app: the audit log."""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET

from accounts.models import AuditEntry
from accounts.selectors import audit_entries

ENTRIES_ON_PAGE = 50
KEY_LABEL_SEPARATOR = " / "


def target_url(entry: AuditEntry) -> str:
    """The page of what an entry changed: the agent, the key, the baseline
    or the pack; empty when its id names no page."""
    kind, ident, label = entry.target_type, entry.target_id, entry.target_label
    try:
        if kind == "agent":
            return reverse("stream:agent-manage", args=[label])
        if kind == "key" and KEY_LABEL_SEPARATOR in label:
            agent = label.split(KEY_LABEL_SEPARATOR, 1)[0]
            return reverse("stream:agent-key", args=[agent, int(ident)])
        if kind == "baseline":
            return reverse("evals:baseline-detail", args=[ident])
        if kind == "pack":
            return reverse("evals:benchmark-detail", args=[ident])
    except (NoReverseMatch, ValueError):
        return ""
    return ""


class AuditFilterForm(forms.Form):
    action = forms.ChoiceField(
        choices=[("", "any")] + list(AuditEntry.Action.choices),
        required=False,
        error_messages={"invalid_choice": "%(value)s is not an action."},
    )
    actor = forms.CharField(max_length=150, required=False, label="Who")
    target = forms.CharField(max_length=200, required=False, label="What")
    before = forms.IntegerField(
        min_value=1,
        required=False,
        widget=forms.HiddenInput,
        error_messages={"invalid": "Not a page of the log."},
    )


@login_required
@require_GET
def audit_log(request: HttpRequest) -> HttpResponse:
    """Who did what to agents, keys, baselines and packs, newest first
    (staff: everything; anyone else: what concerns their own agents)."""
    form = AuditFilterForm(request.GET or None)
    if request.GET and not form.is_valid():
        return render(
            request,
            "accounts/audit_log.html",
            {"form": form, "entries": [], "next_query": None},
            status=400,
        )
    data = form.cleaned_data if request.GET else {}
    entries = audit_entries(
        user=request.user,
        action=data.get("action") or "",
        actor=(data.get("actor") or "").strip(),
        target=(data.get("target") or "").strip(),
        before=data.get("before"),
        limit=ENTRIES_ON_PAGE + 1,
    )
    next_query = None
    if len(entries) > ENTRIES_ON_PAGE:
        entries = entries[:ENTRIES_ON_PAGE]
        query = request.GET.copy()
        query["before"] = str(entries[-1].pk)
        next_query = query.urlencode()
    return render(
        request,
        "accounts/audit_log.html",
        {
            "form": form,
            "entries": entries,
            "rows": [(entry, target_url(entry)) for entry in entries],
            "next_query": next_query,
            "paged": bool(data.get("before")),
        },
    )
