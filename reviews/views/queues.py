"""Review queue pages: the queues a person reviews in, a new queue (staff)
with how to fill it, and a queue's progress per reviewer. Thin: the rules
are ``reviews.services`` and ``reviews.selectors``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_http_methods

from core.errors import NotFound, SchemaInvalid
from reviews.models import ReviewItem, ReviewQueue, Subject
from reviews.selectors import queue_get, queue_members, queues_visible
from reviews.services.assignments import queue_progress, reviewer_progress
from reviews.services.configs import configs_current
from reviews.services.queue_setup import (
    COMPARE,
    SEARCH,
    compare_pair,
    queue_create_filled,
    queue_fill,
)
from reviews.services.queues import (
    queue_configs,
    queue_members_set,
    users_by_name,
)
from reviews.services.subjects import split_scenario_ref, subject_summary
from reviews.views.queue_forms import FillForm, MembersForm, QueueForm
from reviews.views.shared import refusal_on_form, staff_only
from search.selectors import saved_searches

ITEMS_SHOWN = 100
# Where a service's refusal lands on the form.
FIELD_ALIASES = {
    "configs": "configs",
    "kind": "kind",
    "rule": "fill",
    "compare": "fill",
    "base_run_id": "fill",
    "candidate_run_id": "fill",
    "cases": "fill",
    "search": "saved_search",
    "thoughts": "agent",
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


def _compare_links(text: str) -> dict[str, str] | None:
    """The two runs of a compare selection with the pages of each run and of
    their comparison; None when ``text`` names no pair of runs."""
    pair = compare_pair(text) if text else None
    if pair is None:
        return None
    base, candidate = pair
    try:
        base_url = reverse("evals:run-detail", args=[base])
        candidate_url = reverse("evals:run-detail", args=[candidate])
    except NoReverseMatch:  # a run id with a slash names no run
        return None
    query = urlencode({"base": base, "candidate": candidate})
    return {
        "base": base,
        "candidate": candidate,
        "base_url": base_url,
        "candidate_url": candidate_url,
        "compare_url": f"{reverse('evals:compare')}?{query}",
    }


def _search_initial(request: HttpRequest) -> dict[str, Any]:
    chosen = request.GET.get("saved_search", "").strip()
    if not chosen.isascii() or not chosen.isdigit():
        return {}
    found = saved_searches(user=request.user).filter(pk=int(chosen)).first()
    if found is None:
        return {}
    return {
        "fill": SEARCH,
        "saved_search": str(found.pk),
        "name": f"Review the results of {found.name}"[:200],
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
    initial: dict[str, Any] = {}
    if request.method == "GET":
        initial = _compare_initial(request) or _search_initial(request)
    form = QueueForm(
        request.POST or None,
        initial={"assignment": ReviewQueue.Assignment.ROUND_ROBIN, **initial},
        from_compare=from_compare,
        user=request.user,
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
            "compare_runs": _compare_links(from_compare),
            "compare_flips": (source.get("cases", "flips").strip() or "flips")
            == "flips",
            "no_configs": not configs_current(),
        },
        status=status,
    )


def subject_url(item: ReviewItem) -> str:
    """The page of the item's subject; empty when it has none (its subject
    is gone). A scenario result's page is named by its ref alone, so the
    common case reads nothing more."""
    if item.kind == Subject.SCENARIO_RESULT:
        parts = split_scenario_ref(item.ref)
        return reverse("evals:scenario-detail", args=parts) if parts else ""
    summary = subject_summary(item.kind, item.ref)
    return summary.url if summary is not None else ""


def _detail_page(
    request: HttpRequest,
    queue: ReviewQueue,
    *,
    fill_form: FillForm | None = None,
    members_form: MembersForm | None = None,
    status: int = 200,
) -> HttpResponse:
    items = list(
        ReviewItem.objects.filter(queue=queue).order_by("pk")[: ITEMS_SHOWN + 1]
    )
    members = queue_members(queue)
    names = " ".join(user.get_username() for user in members)
    return render(
        request,
        "reviews/queue_detail.html",
        {
            "queue": queue,
            "configs": queue_configs(queue),
            "progress": queue_progress(queue),
            "reviewers": reviewer_progress(queue),
            "members": members,
            "member": is_member(queue, request.user),
            "items": [(item, subject_url(item)) for item in items[:ITEMS_SHOWN]],
            "more_items": len(items) > ITEMS_SHOWN,
            "fill_form": fill_form or FillForm(prefix="more", user=request.user),
            "members_form": members_form
            or MembersForm(prefix="people", initial={"members": names}),
        },
        status=status,
    )


@login_required
def queue_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A queue's progress, per reviewer, and its items; for staff, forms to
    add items and to change the reviewers."""
    return _detail_page(request, queue_or_404(request.user, pk))


STAFF_CHANGE = "Only staff can change review queues."


@login_required
@require_http_methods(["POST"])
@staff_only(STAFF_CHANGE)
def queue_fill_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Add items to the queue (by hand or by a rule); nothing is added when
    any of it is refused."""
    queue = queue_or_404(request.user, pk)
    form = FillForm(request.POST, prefix="more", user=request.user)
    if form.is_valid():
        try:
            result = queue_fill(queue, form.fill_spec(), user=request.user)
        except SchemaInvalid as error:
            refusal_on_form(form, error, FIELD_ALIASES)
        else:
            messages.success(
                request,
                f"{result.added} item{'s' if result.added != 1 else ''} added"
                + (
                    f", {result.already} already in the queue."
                    if result.already
                    else "."
                ),
            )
            return redirect("reviews:queue-detail", pk=queue.pk)
    return _detail_page(request, queue, fill_form=form, status=400)


@login_required
@require_http_methods(["POST"])
@staff_only(STAFF_CHANGE)
def queue_members_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Make the people named the queue's reviewers; someone taken off keeps
    what they finished and their unanswered items go back."""
    queue = queue_or_404(request.user, pk)
    form = MembersForm(request.POST, prefix="people")
    if form.is_valid():
        try:
            queue_members_set(queue, users_by_name(form.names()))
        except SchemaInvalid as error:
            refusal_on_form(form, error)
        else:
            messages.success(request, "Reviewers saved.")
            return redirect("reviews:queue-detail", pk=queue.pk)
    return _detail_page(request, queue, members_form=form, status=400)
