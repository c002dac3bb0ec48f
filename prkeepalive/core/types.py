"""Inputs and results of the keepalive dispatch rules: frozen dataclasses, enums.

No Django import and no I/O: the shell (webhook intake, reconciler, CLI,
explain) reads GitHub and the database, builds these values and hands them to
the deciding functions of this package.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Lane(StrEnum):
    """Which PR-meta lane decided: a human comment or a Gate workflow run."""

    COMMENT = "comment"
    GATE = "gate"


class Reason(StrEnum):
    """The canonical reasons; every decision and summary line uses one."""

    OK = "ok"
    MISSING_LABEL = "missing-label"
    NO_HUMAN_ACTIVATION = "no-human-activation"
    GATE_PENDING = "gate-pending"
    GATE_FAILED = "gate-failed"
    CAP_REACHED = "cap-reached"
    NO_LINKED_PR = "no-linked-pr"
    NO_ACTIVATION_FOUND = "no-activation-found"
    LOCK_HELD = "lock-held"
    MARKERS_MISSING = "markers-missing"
    INSTRUCTION_EMPTY = "instruction-empty"
    WRONG_AUTHOR = "wrong-author"
    BLOCKED = "blocked"


class GateConclusion(StrEnum):
    """Where the Gate workflow stands for the PR's head."""

    SUCCESS = "success"
    PENDING = "pending"
    FAILURE = "failure"


class WorkerAction(StrEnum):
    EXECUTE = "execute"
    SKIP = "skip"


class WorkerReason(StrEnum):
    NEW_INSTRUCTION = "new-instruction"
    UNCHANGED = "no-new-instruction-and-head-unchanged"
    CAP_REACHED = "cap-reached"
    BLOCKED = "blocked"


class SyncAction(StrEnum):
    UPDATE_BRANCH = "update-branch"
    CREATE_PR = "create-pr"
    ESCALATE = "escalate"
    SKIP = "skip"


KEEPALIVE_LABEL = "agents:keepalive"
ACTIVATED_LABEL = "agents:activated"
SYNC_REQUIRED_LABEL = "agents:sync-required"
MAX_RUNS_PREFIX = "agents:max-runs:"
AGENT_LABEL_PREFIX = "agent:"
LOCK_REACTION = "rocket"
ACK_REACTION = "hooray"
DEFAULT_AGENT = "codex"


@dataclass(frozen=True, slots=True)
class Comment:
    """A PR (issue) comment as the rules see it.

    ``author`` is the raw GitHub login; ``author_type`` is GitHub's user type
    (``User``, ``Bot``, ``Organization``). ``reactions`` are reaction contents
    (``rocket``, ``hooray``, ...), in any order.
    """

    id: int
    author: str
    body: str
    author_type: str = "User"
    reactions: tuple[str, ...] = ()
    created_at: str = ""


@dataclass(frozen=True, slots=True)
class Event:
    """One GitHub event reduced to what the lanes read.

    ``issue_comment``: ``action``, ``comment``, ``issue_number`` and
    ``is_pull_request`` (GitHub sends issue comments for issues and PRs alike).
    ``workflow_run``: ``workflow_name``, ``action``, ``status``, ``conclusion``,
    ``head_sha``, ``pull_numbers`` (empty for fork PRs and dispatched runs),
    the optional ``activation_comment_id`` handed over by an earlier step and
    ``display_title`` (a dispatched worker run names its round's trace there).
    """

    name: str
    action: str = ""
    comment: Comment | None = None
    issue_number: int | None = None
    is_pull_request: bool = False
    workflow_name: str = ""
    status: str = ""
    conclusion: str = ""
    head_sha: str = ""
    pull_numbers: tuple[int, ...] = ()
    activation_comment_id: int | None = None
    display_title: str = ""


@dataclass(frozen=True, slots=True)
class PullRequest:
    """The PR a decision is about; ``comments`` feed the Gate lane's fallback."""

    number: int
    head_sha: str = ""
    comments: tuple[Comment, ...] = ()
    is_fork: bool = False


@dataclass(frozen=True, slots=True)
class RecordedRound:
    """A round evalsite already locked for this PR (its row is the lock):
    the activation it was dispatched from, its number and trace, the
    instruction it posted (once posted) and the head it started from."""

    number: int
    trace: str
    activation_id: int
    instruction_id: int | None = None
    head_before: str = ""


@dataclass(frozen=True, slots=True)
class Policy:
    """Per-repository settings the rules read (never the environment).

    ``agent_aliases`` are the mentions that activate (``@codex``); an
    ``agent:<alias>`` label on the PR picks one of them. ``allowed_authors``
    empty means any human may activate. ``automation_logins`` are accounts
    whose comments are never human activations (the orchestrator's own).
    """

    agent_aliases: tuple[str, ...] = (DEFAULT_AGENT,)
    allowed_authors: tuple[str, ...] = ()
    automation_logins: tuple[str, ...] = ()
    gate_workflow: str = "Gate"


@dataclass(frozen=True, slots=True)
class Markers:
    """Hidden markers found in a comment body (any of the accepted forms)."""

    has_sentinel: bool = False
    round: int | None = None
    trace: str = ""

    @property
    def is_complete(self) -> bool:
        """Round and trace are both present: an instruction comment."""
        return self.round is not None and bool(self.trace)

    @property
    def is_present(self) -> bool:
        """Any hidden keepalive marker at all (never a human activation)."""
        return self.has_sentinel or self.round is not None or bool(self.trace)


@dataclass(frozen=True, slots=True)
class DispatchDecision:
    """What PR-meta decided, with every value its ``DISPATCH:`` line prints.

    ``round`` is the round a dispatch starts (previous round + 1); ``detail``
    says in words which condition was unmet, for pages and the explain API.
    """

    ok: bool
    lane: Lane
    reason: Reason
    pr_number: int | None
    activation_id: int | None
    agent: str
    head_sha: str
    cap: int
    active: int
    trace: str
    round: int | None
    detail: str
    fails_job: bool = False


@dataclass(frozen=True, slots=True)
class LastProcessed:
    """The last instruction the worker processed and the head it saw then."""

    instruction_id: int | None = None
    head_sha: str = ""


@dataclass(frozen=True, slots=True)
class WorkerDecision:
    action: WorkerAction
    reason: WorkerReason
    pr_number: int | None
    head_sha: str
    instruction_id: int | None
    trace: str
    detail: str


@dataclass(frozen=True, slots=True)
class SyncAttempt:
    """One rung of the branch-sync ladder that was tried, and whether the
    PR head moved afterwards."""

    action: SyncAction
    head_changed: bool


@dataclass(frozen=True, slots=True)
class SyncDecision:
    """Either the next rung to try (``next_action``) or the final outcome.

    When final, ``action``/``head_changed`` are what the ``SYNC:`` line
    prints and ``add_labels`` what to put on the PR (escalation).
    """

    next_action: SyncAction | None
    action: SyncAction
    head_changed: bool
    trace: str
    detail: str
    add_labels: tuple[str, ...] = field(default_factory=tuple)

    @property
    def is_final(self) -> bool:
        return self.next_action is None
