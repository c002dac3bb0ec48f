"""The forms of the review queue pages: how to fill a queue (also the
second half of a new queue's form), a new queue, and its reviewers."""

from __future__ import annotations

from typing import Any

from django import forms

from reviews.models import ReviewQueue, Subject
from reviews.services.configs import configs_current
from reviews.services.queue_setup import (
    COMPARE,
    HALLUCINATIONS,
    HAND,
    SAMPLE,
    Fill,
    refs_from_text,
)

FILL_CHOICES = [
    (HAND, "By hand: paste subject refs"),
    (SAMPLE, "Rule: a sample of a run's scenarios"),
    (HALLUCINATIONS, "Rule: every hallucination flag of a run"),
]
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
        required=False, label="Sample share (%)", min_value=0, max_value=100
    )
    compare = forms.CharField(required=False, widget=forms.HiddenInput)
    cases = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, from_compare: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
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

    def __init__(self, *args: Any, from_compare: str = "", **kwargs: Any) -> None:
        super().__init__(*args, from_compare=from_compare, **kwargs)
        self.fields["configs"].choices = [
            (str(c.pk), f"{c.name} v{c.version}") for c in configs_current()
        ]


class MembersForm(forms.Form):
    members = forms.CharField(label="Reviewers", required=False, help_text=MEMBERS_HELP)

    def names(self) -> list[str]:
        return str(self.cleaned_data.get("members") or "").replace(",", " ").split()
