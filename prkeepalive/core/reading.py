"""Which facts a decision needs, as rules the gatherers follow: the webhook
service, the reconciler and the Actions command read GitHub and the database
and decide nothing themselves.

- a Gate run that names no PR (a fork PR's) is resolved by the PRs of its
  head commit: ``needs_head_commit_pulls``;
- the comment lane reads Gate from the latest Gate run of the PR's head, the
  Gate lane from the run the event is: ``gate_of_event`` and ``latest_run``;
- the instruction comes from the PR body when it has Scope/Tasks/Acceptance,
  else from the first issue it references: ``instruction_issue``;
- the reconciler records a refusal only when its reason differs from the
  PR's last one: ``worth_recording``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

from prkeepalive.core.instruction import parse_segments
from prkeepalive.core.types import DispatchDecision, Event, GateConclusion, Lane
from prkeepalive.core.wire import gate_from_run

ISSUE_REFERENCE = re.compile(r"(?<![\w/])#(\d+)\b")


class WorkflowRun(Protocol):
    """What the rules read of a workflow run (GitHub's listing)."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def conclusion(self) -> str: ...
    @property
    def created_at(self) -> str: ...


def needs_head_commit_pulls(event: Event) -> bool:
    """A Gate run that names no PR: its head commit's PRs must be read."""
    return (
        event.name == "workflow_run" and not event.pull_numbers and bool(event.head_sha)
    )


def gate_of_event(event: Event, lane: Lane | None) -> GateConclusion | None:
    """Gate as the event tells it (the Gate lane: the run itself), or None
    when it must be read from the head's latest Gate run (the comment lane)."""
    if lane is Lane.COMMENT:
        return None
    return gate_from_run(event.status, event.conclusion)


def latest_run[R: WorkflowRun](
    runs: Iterable[R], workflow: str, *, completed: bool = False
) -> R | None:
    """The newest run of ``workflow`` (by creation, then id; names compared
    without case or surrounding blanks), only completed ones if asked."""
    name = workflow.strip().lower()
    matching = [
        r
        for r in runs
        if r.name.strip().lower() == name and (not completed or r.status == "completed")
    ]
    return max(matching, key=lambda r: (r.created_at, r.id)) if matching else None


def gate_of_runs(runs: Iterable[WorkflowRun], gate_workflow: str) -> GateConclusion:
    """Gate on a head: its latest Gate run's conclusion (pending: none)."""
    latest = latest_run(runs, gate_workflow)
    if latest is None:
        return GateConclusion.PENDING
    return gate_from_run(latest.status, latest.conclusion)


def has_own_instruction(body: str) -> bool:
    """The PR body carries Scope, Tasks or Acceptance Criteria itself."""
    return not parse_segments(body).is_empty


def instruction_issue(body: str) -> int | None:
    """The issue whose body holds the instruction: the first one a PR body
    without its own segments references (``#123``); None otherwise."""
    if has_own_instruction(body):
        return None
    match = ISSUE_REFERENCE.search(body)
    return int(match.group(1)) if match else None


def worth_recording(decision: DispatchDecision, last_reason: str | None) -> bool:
    """Whether the reconciler records ``decision``: a dispatch always, a
    refusal only when its reason differs from the PR's last one."""
    return decision.ok or last_reason != decision.reason.value
