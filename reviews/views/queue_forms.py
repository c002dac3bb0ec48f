"""The forms of the review queue pages: how to fill a queue (also the
second half of a new queue's form), a new queue, and its reviewers."""

from __future__ import annotations

from typing import Any

from django import forms

from reviews.models import ReviewQueue, Subject
from reviews.services.configs import configs_current
from reviews.services.fill_sources import MAX_ITEMS
from reviews.services.queue_setup import (
    COMPARE,
    DECISIONS,
    EPISODES,
    HALLUCINATIONS,
    HAND,
    SAMPLE,
    SEARCH,
    THOUGHTS,
    Fill,
    refs_from_text,
)
from search.selectors import saved_searches

FILL_CHOICES = [
    (HAND, "By hand: paste subject refs"),
    (SAMPLE, "Rule: a sample of a run's scenarios"),
    (HALLUCINATIONS, "Rule: every hallucination flag of a run"),
    (THOUGHTS, "The thoughts of an agent in a time range"),
    (SEARCH, "What one of your saved searches finds"),
    (EPISODES, "The episodes of a gridworld batch (all or a share)"),
    (DECISIONS, "The keepalive decisions of a pull request or a time range"),
]
ELIGIBLE_CHOICES = [
    ("", "Any"),
    ("yes", "Actionable only"),
    ("no", "Not actionable only"),
]
# Which ways of filling use a field: the page shows only the chosen way's
# fields (static/reviews/js/fill_form.js; without JavaScript all show, and
# each label names the ways it is for).
FILL_FIELDS: dict[str, tuple[str, ...]] = {
    "kind": (HAND,),
    "refs": (HAND,),
    "run_id": (SAMPLE, HALLUCINATIONS),
    "percent": (SAMPLE, EPISODES),
    "agent": (THOUGHTS,),
    "since": (THOUGHTS, DECISIONS),
    "until": (THOUGHTS, DECISIONS),
    "eligible": (THOUGHTS,),
    "saved_search": (SEARCH,),
    "batch": (EPISODES,),
    "pull": (DECISIONS,),
}
TIME_WIDGET = forms.DateTimeInput(attrs={"type": "datetime-local"})
MEMBERS_HELP = "User names, separated by commas or spaces."


class FillForm(forms.Form):
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
        required=False,
        label="Share (%) (sample, episodes)",
        min_value=0,
        max_value=100,
        help_text="Episodes: leave empty for all of the batch's episodes.",
    )
    agent = forms.CharField(required=False, max_length=200, label="Agent (thoughts)")
    since = forms.DateTimeField(
        required=False, widget=TIME_WIDGET, label="From (thoughts, decisions)"
    )
    until = forms.DateTimeField(
        required=False, widget=TIME_WIDGET, label="Before (thoughts, decisions)"
    )
    eligible = forms.ChoiceField(
        choices=ELIGIBLE_CHOICES,
        required=False,
        label="Actionable (thoughts)",
        help_text=f"At most {MAX_ITEMS} thoughts, episodes or decisions are "
        "added; when more match, the same sample of them is taken every time.",
    )
    saved_search = forms.ChoiceField(
        choices=[("", "none chosen")], required=False, label="Saved search"
    )
    batch = forms.CharField(
        required=False, max_length=20, label="Gridworld batch number (episodes)"
    )
    pull = forms.CharField(
        required=False,
        max_length=220,
        label="Pull request (decisions)",
        help_text="As owner/name#number, for example acme/widgets#7; leave "
        "it empty for every decision made between From and Before.",
    )
    compare = forms.CharField(required=False, widget=forms.HiddenInput)
    cases = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(
        self, *args: Any, from_compare: str = "", user: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        for name, ways in FILL_FIELDS.items():
            self.fields[name].widget.attrs["data-fill-for"] = " ".join(ways)
        if user is not None and getattr(user, "is_authenticated", False):
            self.fields["saved_search"].choices = [
                ("", "none chosen"),
                *((str(s.pk), s.name) for s in saved_searches(user=user)),
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
            agent=(data.get("agent") or "").strip(),
            since=data.get("since"),
            until=data.get("until"),
            eligible=data.get("eligible") or "",
            saved_search=data.get("saved_search") or "",
            batch=(data.get("batch") or "").strip(),
            pull=(data.get("pull") or "").strip(),
        )


class QueueForm(FillForm):
    field_order = [
        "name",
        "description",
        "configs",
        "assignment",
        "overlap_percent",
        "members",
    ]
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
    members = forms.CharField(label="Reviewers", help_text=MEMBERS_HELP)

    def __init__(
        self, *args: Any, from_compare: str = "", user: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, from_compare=from_compare, user=user, **kwargs)
        self.fields["configs"].choices = [
            (str(c.pk), f"{c.name} v{c.version}") for c in configs_current()
        ]


class MembersForm(forms.Form):
    members = forms.CharField(label="Reviewers", required=False, help_text=MEMBERS_HELP)

    def names(self) -> list[str]:
        return str(self.cleaned_data.get("members") or "").replace(",", " ").split()
