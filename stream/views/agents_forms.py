"""Forms of the agents-and-keys pages: what a person types, checked before
anything is stored (each refusal names its field and says why)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils import timezone

from core.scopes import DEFAULT_SCOPES, SCOPES
from core.text import name_problem
from stream.models import Agent

# One line per scope (core.scopes), shown next to its checkbox.
SCOPE_DESCRIPTIONS: dict[str, str] = {
    "stream": "publish percepts and thoughts, read the stream, run planning tasks",
    "benchmarks:read": "read benchmarks, runs, baselines, the gate and batches",
    "prkeepalive:read": "read PR keepalive decisions and rounds, dry-run explain",
    "benchmarks:write": "record runs, shadows, new packs and batches (and read)",
    "benchmarks:replace": "replace a different pack under an existing id (and write)",
    "baselines:write": "store baseline snapshots the CI gate compares against",
    "traces": "send spans over OTLP and read this agent's traces",
    "reviews": "read and post human scores on this agent's subjects",
    "search": "full-text search over this agent's thoughts and outputs",
}
SCOPE_CHOICES = [(s, f"{s} — {SCOPE_DESCRIPTIONS.get(s, s)}") for s in SCOPES]


class ScopesField(forms.MultipleChoiceField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            choices=SCOPE_CHOICES,
            widget=forms.CheckboxSelectMultiple,
            error_messages={
                "invalid_choice": "%(value)s is not a scope.",
                "required": "Choose at least one scope.",
            },
            **kwargs,
        )


class AgentCreateForm(forms.Form):
    name = forms.SlugField(
        max_length=64,
        help_text="Letters, digits, - and _.",
        error_messages={
            "required": "Give the agent a name.",
            "invalid": "Use only letters, digits, - and _.",
        },
    )
    owner = forms.CharField(
        max_length=150, required=False, help_text="Username; empty: you."
    )
    scopes = ScopesField(initial=list(DEFAULT_SCOPES), label="Scopes of its first key")

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        if not user.is_staff:
            # Only staff make agents for someone else.
            del self.fields["owner"]

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"]
        if Agent.objects.filter(name=name).exists():
            raise forms.ValidationError("An agent with this name already exists.")
        return name

    def clean_owner(self) -> Any:
        username = self.cleaned_data.get("owner", "").strip()
        if not username:
            return self.user
        owner = get_user_model().objects.filter(username=username).first()
        if owner is None:
            raise forms.ValidationError(f"No user is named {username}.")
        return owner

    def owner_user(self) -> Any:
        return self.cleaned_data.get("owner") or self.user


class KeyCreateForm(forms.Form):
    name = forms.CharField(
        max_length=64,
        strip=True,
        help_text="What the key is for, e.g. ci or laptop.",
        error_messages={"required": "Give the key a name."},
    )
    scopes = ScopesField(initial=list(DEFAULT_SCOPES))
    expires_at = forms.DateTimeField(
        required=False,
        label="Expires (UTC, optional)",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d"],
        error_messages={"invalid": "Enter a date and time, e.g. 2030-01-31 12:00."},
    )

    def clean_name(self) -> str:
        # Shown in lists and the audit log: nothing that renders as
        # something else (bidi overrides, zero-width characters).
        name: str = self.cleaned_data["name"]
        problem = name_problem(name)
        if problem is not None:
            raise forms.ValidationError(f"The name {problem}.")
        return name

    def clean_expires_at(self) -> datetime | None:
        expires: datetime | None = self.cleaned_data.get("expires_at")
        if expires is not None and expires <= timezone.now():
            raise forms.ValidationError("The expiry must be in the future.")
        return expires


class KeyScopesForm(forms.Form):
    scopes = ScopesField()
