"""A reviewer's sitting: one item at a time with its context and the score
form. Keys (static/reviews/js/review.js) pick values and press the
buttons; without JavaScript the same form posts plainly. Each answer
redirects to the next item, so a reload never posts twice. Thin: the rules
are ``reviews.services.assignments``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from core.errors import NotFound, SchemaInvalid
from reviews.core.values import BOOLEAN, CATEGORICAL, NUMERIC
from reviews.models import ReviewAssignment, ReviewQueue, ScoreConfig
from reviews.services.assignments import (
    assignment_get,
    assignment_score,
    assignment_second_look,
    assignment_skip,
    next_assignment,
    queue_progress,
    reviewer_progress,
)
from reviews.services.context import subject_context
from reviews.services.queues import queue_configs
from reviews.services.subjects import primary_key
from reviews.views.queues import is_member, queue_or_404

# A numeric range of at most this many whole values is offered as choices.
MAX_STEPS = 9


@dataclass(frozen=True, slots=True)
class Choice:
    key: str
    value: str
    label: str
    checked: bool


@dataclass(frozen=True, slots=True)
class ScoreField:
    """One config on the form: its input's name, its choices (keys 1..9 or
    y/n) or, for a wide numeric range, a number box; the value typed last
    and the reason it was refused."""

    config: ScoreConfig
    name: str
    choices: tuple[Choice, ...]
    number: bool
    value: str
    error: str
    steps: tuple[str, ...] = ()


def _plain(number: float | None) -> str:
    if number is None:
        return ""
    return str(int(number)) if float(number).is_integer() else f"{number:g}"


def numeric_steps(low: float | None, high: float | None) -> list[str]:
    """The values keys 1..9 stand for on a numeric config: each whole value
    of a range of at most nine, else nine evenly spaced values."""
    if low is None or high is None or not low < high:
        return []
    if float(low).is_integer() and float(high).is_integer():
        count = int(high) - int(low) + 1
        if count <= MAX_STEPS:
            return [str(value) for value in range(int(low), int(high) + 1)]
    step = (high - low) / (MAX_STEPS - 1)
    return [_plain(round(low + step * index, 6)) for index in range(MAX_STEPS)]


def score_field(config: ScoreConfig, value: str, error: str) -> ScoreField:
    name = f"value-{config.name}"
    if config.kind == CATEGORICAL:
        choices = tuple(
            Choice(str(index + 1), label, label, label == value)
            for index, label in enumerate(config.labels or [])
        )
        return ScoreField(config, name, choices, False, value, error)
    if config.kind == BOOLEAN:
        choices = (
            Choice("y", "yes", "yes", value in ("yes", "true", "y", "1")),
            Choice("n", "no", "no", value in ("no", "false", "n", "0")),
        )
        return ScoreField(config, name, choices, False, value, error)
    steps = numeric_steps(config.min_value, config.max_value)
    if config.kind == NUMERIC and _whole_range(config):
        choices = tuple(
            Choice(str(index + 1), step, step, step == value)
            for index, step in enumerate(steps)
        )
        return ScoreField(config, name, choices, False, value, error)
    return ScoreField(config, name, (), True, value, error, tuple(steps))


def _whole_range(config: ScoreConfig) -> bool:
    low, high = config.min_value, config.max_value
    return (
        low is not None
        and high is not None
        and float(low).is_integer()
        and float(high).is_integer()
        and int(high) - int(low) + 1 <= MAX_STEPS
    )


def _fields(
    configs: list[ScoreConfig],
    values: Mapping[str, str],
    errors: Mapping[str, str],
) -> list[ScoreField]:
    return [
        score_field(c, values.get(c.name, ""), errors.get(c.name, "")) for c in configs
    ]


def _sitting_page(
    request: HttpRequest,
    queue: ReviewQueue,
    assignment: ReviewAssignment | None,
    *,
    values: Mapping[str, str] | None = None,
    errors: Mapping[str, str] | None = None,
    comment: str = "",
    status: int = 200,
) -> HttpResponse:
    configs = queue_configs(queue)
    context = None
    if assignment is not None:
        context = subject_context(
            assignment.item.kind, assignment.item.ref, request.user
        )
    mine = next(
        (r for r in reviewer_progress(queue) if r.user_id == request.user.pk), None
    )
    return render(
        request,
        "reviews/sitting.html",
        {
            "queue": queue,
            "assignment": assignment,
            "subject": context,
            "fields": _fields(configs, values or {}, errors or {}),
            "errors": errors or {},
            "comment": comment,
            "progress": queue_progress(queue),
            "mine": mine,
        },
        status=status,
    )


def _member_queue(request: HttpRequest, pk: int) -> ReviewQueue:
    queue = queue_or_404(request.user, pk)
    if not is_member(queue, request.user):
        # Staff see every queue but review only in those they belong to.
        raise Http404("not a reviewer of this queue")
    return queue


@login_required
@require_http_methods(["GET", "POST"])
def review(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the reviewer's next item. POST: score it (``action=score``),
    skip it or ask for a second look, then on to the next."""
    queue = _member_queue(request, pk)
    if request.method == "GET":
        return _sitting_page(request, queue, next_assignment(queue, request.user))
    pk = primary_key(request.POST.get("assignment", ""))
    try:
        if pk is None:
            raise NotFound("no such assignment")
        assignment = assignment_get(queue, request.user, pk)
    except NotFound:
        messages.error(request, "That item is not yours to review; here is your next.")
        return redirect("reviews:review", pk=queue.pk)
    action = request.POST.get("action", "score")
    comment = request.POST.get("comment", "")
    configs = queue_configs(queue)
    values = {c.name: request.POST.get(f"value-{c.name}", "") for c in configs}
    try:
        if action == "skip":
            assignment_skip(assignment, comment=comment)
            note = "Skipped."
        elif action == "second_look":
            assignment_second_look(assignment, comment=comment)
            note = "Marked as needing a second look."
        else:
            assignment_score(assignment, values, comment=comment, from_text=True)
            note = "Scored."
    except SchemaInvalid as error:
        errors = {p.path: p.message for p in error.problems}
        return _sitting_page(
            request,
            queue,
            assignment,
            values=values,
            errors=errors,
            comment=comment,
            status=400,
        )
    messages.success(request, note)
    return redirect("reviews:review", pk=queue.pk)
