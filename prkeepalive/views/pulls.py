"""Pages of PR keepalive: repositories and PRs with their current state,
and one PR's timeline with the dry-run form. Thin: selectors read, the
explain service decides, charts.py draws."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.errors import SchemaInvalid
from prkeepalive import charts, selectors
from prkeepalive.core.explain import Explanation
from prkeepalive.core.inputs import recorded_instruction, recorded_request
from prkeepalive.models import Decision, Delivery, PullRequest, Round
from prkeepalive.services.explain import explanation_of


@login_required
def index(request: HttpRequest) -> HttpResponse:
    troubled = selectors.troubled_by_repository()
    repositories = [
        (repo, selectors.pull_states(repo), troubled.get(repo.pk, []))
        for repo in selectors.repositories()
    ]
    return render(
        request,
        "prkeepalive/index.html",
        {
            "repositories": repositories,
            "figure": charts.reason_histogram_figure(selectors.reason_histogram()),
            "totals": sorted(selectors.reason_totals().items()),
        },
    )


def _timeline(pull: PullRequest) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    rounds = selectors.rounds_for(pull)
    for d in selectors.decisions_for(pull):
        items.append({"kind": "decision", "at": d.created_at, "decision": d})
    for r in rounds:
        items.append({"kind": "round", "at": r.created_at, "round": r})
    items.sort(key=lambda i: (i["at"], i["kind"] == "round"), reverse=True)
    return items


def _state_template(pull: PullRequest) -> dict[str, Any]:
    """The explain form's state, prefilled with what evalsite last saw."""
    active = pull.rounds.filter(status__in=selectors.ACTIVE).count()
    last = pull.decisions.order_by("-created_at", "-pk").first()
    return {
        "labels": pull.labels,
        "gate": "success",
        "activeRuns": active,
        "pr": {"number": pull.number, "headSha": pull.head_sha},
        "comments": [],
        "issueBody": recorded_instruction(last.inputs) if last else "",
        "lastProcessed": {
            "instructionId": pull.last_processed_instruction_id,
            "headSha": pull.last_processed_head_sha,
        },
    }


def _payload_template(pull: PullRequest) -> dict[str, Any]:
    return {
        "action": "created",
        "issue": {"number": pull.number, "pull_request": {}},
        "comment": {
            "id": 1,
            "body": "@codex please continue",
            "user": {"login": "octocat", "type": "User"},
        },
    }


@login_required
def pull_detail(
    request: HttpRequest, owner: str, name: str, number: int
) -> HttpResponse:
    pull = selectors.pull_get(owner=owner, name=name, number=number)
    last_decision: Decision | None = pull.decisions.order_by(
        "-created_at", "-pk"
    ).first()
    recorded = recorded_request(last_decision.inputs) if last_decision else None
    if recorded is not None:
        # The facts the last decision read: "Explain" shows it again, and
        # editing one fact shows what would change.
        form = {
            "event": recorded["event"],
            "payload": json.dumps(recorded["payload"], indent=2),
            "state": json.dumps(recorded["state"], indent=2),
        }
    else:
        form = {
            "event": "issue_comment",
            "payload": json.dumps(_payload_template(pull), indent=2),
            "state": json.dumps(_state_template(pull), indent=2),
        }
    result: Explanation | None = None
    errors: list[tuple[str, str]] = []
    status = 200
    if request.method == "POST":
        form = {k: request.POST.get(k, "") for k in ("event", "payload", "state")}
        document: dict[str, Any] = {"event": form["event"].strip()}
        for key in ("payload", "state"):
            try:
                document[key] = json.loads(form[key] or "{}")
            except ValueError as exc:
                errors.append(
                    (key, f"is not valid JSON ({exc.msg}, line {exc.lineno})")
                )
        if not errors:
            try:
                result = explanation_of(document)
            except SchemaInvalid as exc:
                errors = [(p.path, p.message) for p in exc.problems]
        if errors:
            status = 400
    troubled = selectors.troubled_deliveries(pull)
    # A failed or retrying delivery newer than the last decision is the
    # latest word on this PR: the decision shown below it is older.
    unresolved: Delivery | None = next(
        (
            d
            for d in troubled
            if last_decision is None or d.received_at > last_decision.created_at
        ),
        None,
    )
    last_round: Round | None = pull.rounds.order_by("-created_at", "-pk").first()
    return render(
        request,
        "prkeepalive/pull_detail.html",
        {
            "pull": pull,
            "state": next(
                s
                for s in selectors.pull_states(pull.repository)
                if s.pull.pk == pull.pk
            ),
            "timeline": _timeline(pull),
            "last_decision": last_decision,
            "last_round": last_round,
            "troubled": troubled,
            "unresolved": unresolved,
            "form": form,
            "result": result,
            "errors": errors,
        },
        status=status,
    )
