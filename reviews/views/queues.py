"""Review queue pages: the queues a person reviews in, a new queue (staff)
with how to fill it, and a queue's progress per reviewer. Thin: the rules
are ``reviews.services`` and ``reviews.selectors``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from core.errors import NotFound, SchemaInvalid
from reviews.models import ReviewItem, ReviewQueue, Subject
from reviews.selectors import queue_get, queue_members, queues_visible
from reviews.services.assignments import queue_progress, reviewer_progress
from reviews.services.configs import configs_current
from reviews.services.queue_setup import (
    COMPARE,
    HALLUCINATIONS,
    HAND,
    SAMPLE,
    Fill,
    compare_pair,
    queue_create_filled,
    refs_from_text,
)
from reviews.services.queues import queue_configs
from reviews.views.shared import refusal_on_form, staff_only

ITEMS_SHOWN = 100
FILL_CHOICES = [
    (HAND, "By hand: paste subject refs"),
    (SAMPLE, "Rule: a sample of a run's scenarios"),
    (HALLUCINATIONS, "Rule: every hallucination flag of a run"),
]
# Where a service's refusal lands on the form.
FIELD_ALIASES = {
    "configs": "configs",
    "kind": "kind",
    "rule": "fill",
    "compare": "fill",
    "base_run_id": "fill",
    "candidate_run_id": "fill",
    "cases": "fill",
    "search": "fill",
}


def queue_or_404(user: Any, pk: int) -> ReviewQueue:
    """The queue if ``user`` may open it (a member, or staff); 404 for any
    other queue, as for one that does not exist."""
    if not 0 < pk < 2**63:
        raise Http404("no such review queue")
    try:
        return queue_get(user=user, pk=pk)
    except NotFound:
        raise Http404("no such review queue") from None


def is_member(queue: ReviewQueue, user: Any) -> bool:
    return queue.members.filter(pk=user.pk).exists()


@login_required
def queue_list(request: HttpRequest) -> HttpResponse:
    """The queues the person reviews in (staff: every queue) with their
    progress."""
    queues = list(queues_visible(user=request.user).order_by("-created_at", "-id"))
    mine = set(request.user.review_queues.values_list("pk", flat=True))
    rows = [
        {"queue": q, "progress": queue_progress(q), "member": q.pk in mine}
        for q in queues
    ]
    return render(request, "reviews/queue_list.html", {"rows": rows})


class QueueForm(forms.Form):
    name = forms.CharField(max_length=200)
    description = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    configs = forms.MultipleChoiceField(
        widget=forms.CheckboxSelectMultiple,
        label="Score configs",
        help_text="Every item is scored on each of these.",
    )
    assignment = forms.ChoiceField(
        choices=ReviewQueue.Assignment.choices,
        help_text="Round robin hands the items out when the queue is filled; "
        "claim next lets each reviewer take the next free one.",
    )
    overlap_percent = forms.IntegerField(
        min_value=0,
        max_value=100,
        initial=0,
        label="Overlap (%)",
        help_text="The share of items a second reviewer also scores, to "
        "measure agreement.",
    )
    members = forms.CharField(
        label="Reviewers",
        help_text="User names, separated by commas or spaces.",
    )
    fill = forms.ChoiceField(
        choices=FILL_CHOICES, widget=forms.RadioSelect, label="How to fill it"
    )
    kind = forms.ChoiceField(
        choices=Subject.choices,
        required=False,
        label="Kind of subject (by hand)",
    )
    refs = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        label="Refs (by hand, one a line)",
        help_text="A scenario result as run id/case id; a thought, an "
        "episode or a keepalive decision by its number.",
    )
    run_id = forms.CharField(required=False, label="Run id (rules)")
    percent = forms.FloatField(
        required=False, label="Sample share (%)", min_value=0, max_value=100
    )
    compare = forms.CharField(required=False, widget=forms.HiddenInput)
    cases = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, from_compare: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["configs"].choices = [
            (str(c.pk), f"{c.name} v{c.version}") for c in configs_current()
        ]
        if from_compare:
            self.fields["fill"].choices = [
                (COMPARE, f"From the compare selection {from_compare}"),
                *FILL_CHOICES,
            ]

    def fill_spec(self) -> Fill:
        data = self.cleaned_data
        cases_text = (data.get("cases") or "").strip()
        cases = None if cases_text in ("", "flips") else refs_from_text(cases_text)
        return Fill(
            how=data["fill"],
            kind=data.get("kind") or Subject.SCENARIO_RESULT.value,
            refs=refs_from_text(data.get("refs") or ""),
            run_id=(data.get("run_id") or "").strip(),
            percent=data.get("percent"),
            compare=data.get("compare") or "",
            cases=cases,
        )


def _chosen_configs(form: QueueForm) -> list[Any]:
    wanted = {int(pk) for pk in form.cleaned_data["configs"]}
    return [c for c in configs_current() if c.pk in wanted]


def _compare_initial(request: HttpRequest) -> dict[str, Any]:
    pair = compare_pair(request.GET.get("from_compare", ""))
    if pair is None:
        return {}
    cases = request.GET.get("cases", "flips").strip() or "flips"
    base, candidate = pair
    what = "flips" if cases == "flips" else "selected scenarios"
    return {
        "fill": COMPARE,
        "compare": f"{base}...{candidate}",
        "cases": cases,
        "name": f"Review the {what} of {candidate}",
    }


@login_required
@require_http_methods(["GET", "POST"])
@staff_only("Only staff can create review queues.")
def queue_new(request: HttpRequest) -> HttpResponse:
    """A new queue: its configs, assignment, overlap, reviewers and how to
    fill it; nothing is stored unless the whole of it is accepted."""
    source = request.POST if request.method == "POST" else request.GET
    from_compare = ""
    if compare_pair(source.get("compare", "") or source.get("from_compare", "")):
        from_compare = source.get("compare", "") or source.get("from_compare", "")
    initial = _compare_initial(request) if request.method == "GET" else {}
    form = QueueForm(
        request.POST or None,
        initial={"assignment": ReviewQueue.Assignment.ROUND_ROBIN, **initial},
        from_compare=from_compare,
    )
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                queue, result = queue_create_filled(
                    name=data["name"],
                    configs=_chosen_configs(form),
                    member_names=data["members"].replace(",", " ").split(),
                    fill=form.fill_spec(),
                    description=data["description"],
                    assignment=data["assignment"],
                    overlap_percent=data["overlap_percent"],
                    user=request.user,
                )
            except SchemaInvalid as error:
                refusal_on_form(form, error, FIELD_ALIASES)
            else:
                messages.success(
                    request,
                    f"Queue {queue.name} created with {result.added} "
                    f"item{'s' if result.added != 1 else ''}.",
                )
                return redirect("reviews:queue-detail", pk=queue.pk)
    return render(
        request,
        "reviews/queue_new.html",
        {
            "form": form,
            "from_compare": from_compare,
            "no_configs": not configs_current(),
        },
        status=status,
    )


@login_required
def queue_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A queue's progress, per reviewer, and its items."""
    queue = queue_or_404(request.user, pk)
    items = list(
        ReviewItem.objects.filter(queue=queue).order_by("pk")[: ITEMS_SHOWN + 1]
    )
    return render(
        request,
        "reviews/queue_detail.html",
        {
            "queue": queue,
            "configs": queue_configs(queue),
            "progress": queue_progress(queue),
            "reviewers": reviewer_progress(queue),
            "members": queue_members(queue),
            "member": is_member(queue, request.user),
            "items": items[:ITEMS_SHOWN],
            "more_items": len(items) > ITEMS_SHOWN,
        },
    )
