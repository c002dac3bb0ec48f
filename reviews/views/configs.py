"""Score config pages: the list, one config's versions and benchmarks, and
(staff only) a new config, a new version and attaching one to a benchmark.
Thin: the rules are ``reviews.services.configs``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_http_methods, require_POST

from core.errors import NotFound, SchemaInvalid
from evals.selectors.benchmarks import benchmark_choices
from reviews.core.values import KINDS, labels_shown
from reviews.services.configs import (
    attachments_of,
    config_attach,
    config_create,
    config_detach,
    config_new_version,
    config_versions,
    configs_current,
)
from reviews.views.shared import refusal_on_form, staff_only

STAFF_ONLY = "Only staff can define score configs or attach them to benchmarks."


class ConfigForm(forms.Form):
    name = forms.CharField(
        max_length=64,
        help_text="Lowercase letters, digits, - and _; the metric is human.<name>.",
    )
    kind = forms.ChoiceField(
        choices=[(kind, kind) for kind in KINDS],
        help_text="numeric: a value in a range; categorical: one of the labels; "
        "boolean: yes or no.",
    )
    min_value = forms.FloatField(required=False, label="Lowest value (numeric)")
    max_value = forms.FloatField(required=False, label="Highest value (numeric)")
    labels = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        label="Labels (categorical, one a line, 2 to 9)",
    )
    description = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    rubric = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="What each value means; reviewers see it beside the score.",
    )

    def spec(self) -> dict[str, Any]:
        data = self.cleaned_data
        kind = data["kind"]
        lines = [line.strip() for line in (data["labels"] or "").splitlines()]
        return {
            "name": data["name"].strip(),
            "kind": kind,
            "min_value": data["min_value"],
            "max_value": data["max_value"],
            "labels": [line for line in lines if line],
            "description": data["description"],
            "rubric": data["rubric"],
        }


class AttachForm(forms.Form):
    benchmark_id = forms.ChoiceField(
        label="Benchmark",
        help_text="A scenario suite, a benchmark pack or a gridworld configuration.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["benchmark_id"].choices = [
            (benchmark_id, f"{benchmark_id} ({kind})")
            for benchmark_id, kind in benchmark_choices()
        ]


def _config_rows() -> list[dict[str, Any]]:
    return [
        {"config": config, "benchmarks": attachments_of(config.name)}
        for config in configs_current()
    ]


@login_required
def config_list(request: HttpRequest) -> HttpResponse:
    """Every score config's current version and the benchmarks it is on."""
    return render(request, "reviews/config_list.html", {"rows": _config_rows()})


@login_required
@require_http_methods(["GET", "POST"])
@staff_only(STAFF_ONLY)
def config_new(request: HttpRequest) -> HttpResponse:
    """Define a new score config (version 1)."""
    form = ConfigForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                config = config_create(**form.spec(), user=request.user)
            except SchemaInvalid as error:
                refusal_on_form(form, error)
            else:
                messages.success(request, f"Score config {config} created.")
                return redirect("reviews:config-detail", name=config.name)
    return render(
        request,
        "reviews/config_form.html",
        {"form": form, "title": "New score config", "config": None},
        status=status,
    )


def _versions_or_404(name: str) -> list[Any]:
    versions = config_versions(name)
    if not versions:
        raise Http404("no such score config")
    return versions


def benchmark_url(benchmark_id: str) -> str:
    """The benchmark's page; empty for an id no page can name."""
    try:
        return reverse("evals:benchmark-detail", args=[benchmark_id])
    except NoReverseMatch:
        return ""


def _attached(name: str) -> list[tuple[str, str]]:
    """``(benchmark id, its page)`` of each benchmark the config is on."""
    return [(b, benchmark_url(b)) for b in attachments_of(name)]


@login_required
def config_detail(request: HttpRequest, name: str) -> HttpResponse:
    """A config's versions, newest first, and the benchmarks it is on."""
    versions = _versions_or_404(name)
    return render(
        request,
        "reviews/config_detail.html",
        {
            "config": versions[0],
            "versions": versions,
            "keys": labels_shown(versions[0].labels or []),
            "benchmarks": _attached(name),
            "attach_form": AttachForm(),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
@staff_only(STAFF_ONLY)
def config_version_new(request: HttpRequest, name: str) -> HttpResponse:
    """A new version of a config, filled in from the current one; it
    becomes the version new scores are given under."""
    current = _versions_or_404(name)[0]
    initial = {
        "name": current.name,
        "kind": current.kind,
        "min_value": current.min_value,
        "max_value": current.max_value,
        "labels": "\n".join(current.labels or []),
        "description": current.description,
        "rubric": current.rubric,
    }
    form = ConfigForm(request.POST or None, initial=initial)
    form.fields["name"].disabled = True
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                config = config_new_version(**form.spec(), user=request.user)
            except SchemaInvalid as error:
                refusal_on_form(form, error)
            except NotFound as error:
                form.add_error(None, error.message)
            else:
                messages.success(request, f"Score config {config} is now current.")
                return redirect("reviews:config-detail", name=config.name)
    return render(
        request,
        "reviews/config_form.html",
        {"form": form, "title": f"New version of {name}", "config": current},
        status=status,
    )


@login_required
@require_POST
@staff_only(STAFF_ONLY)
def config_attach_page(request: HttpRequest, name: str) -> HttpResponse:
    """Attach the config to a benchmark (or, with ``detach``, take it off)."""
    versions = _versions_or_404(name)
    if request.POST.get("detach"):
        # A benchmark deleted since can still be taken off.
        benchmark_id = request.POST.get("benchmark_id", "").strip()
        if config_detach(name=name, benchmark_id=benchmark_id):
            messages.success(request, f"{name} taken off {benchmark_id}.")
        return redirect("reviews:config-detail", name=name)
    form = AttachForm(request.POST)
    if form.is_valid():
        benchmark_id = form.cleaned_data["benchmark_id"]
        try:
            config_attach(name=name, benchmark_id=benchmark_id)
        except SchemaInvalid as error:
            refusal_on_form(form, error)
        else:
            messages.success(request, f"{name} attached to {benchmark_id}.")
            return redirect("reviews:config-detail", name=name)
    return render(
        request,
        "reviews/config_detail.html",
        {
            "config": versions[0],
            "versions": versions,
            "keys": labels_shown(versions[0].labels or []),
            "benchmarks": _attached(name),
            "attach_form": form,
        },
        status=400,
    )
