"""Demo data of PR keepalive: one repository, four PRs and their decisions
and rounds, all decided by the real core on recorded facts, as the service
records them (each decision's inputs replay in the dry run).

The repository is fictional, so it is registered paused (``is_active``
false): no webhook for it is handled and the reconciler never asks GitHub
about it. Registered in ``DEMO_DATA_LOADERS``; loading twice records nothing
new (the demo repository is the marker).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from prkeepalive.api.outputs import DispatchDecisionSerializer
from prkeepalive.core.facts import Facts, decide
from prkeepalive.core.inputs import DecisionInputs, recorded_to_wire
from prkeepalive.core.instruction import extract_instruction
from prkeepalive.core.summary import (
    decision_line,
    instruction_line,
    sync_line,
    worker_line,
)
from prkeepalive.core.sync import decide_sync
from prkeepalive.core.types import (
    Comment,
    DispatchDecision,
    Event,
    GateConclusion,
    LastProcessed,
    Policy,
    SyncAction,
    SyncAttempt,
)
from prkeepalive.core.types import (
    PullRequest as CorePull,
)
from prkeepalive.core.worker import decide_worker
from prkeepalive.models import Decision, PullRequest, Repository, Round

DEMO_REPOSITORY = "demo-org/widgets"
POLICY = Policy(agent_aliases=("codex",), automation_logins=("widgets-automation-bot",))
ISSUE = (
    "## Scope\nThe CSV importer drops rows with quoted commas.\n"
    "## Tasks\n- [ ] add a failing test with a quoted comma\n- [ ] fix the splitter\n"
    "## Acceptance Criteria\n- the importer test suite passes"
)


def _sha(n: int) -> str:
    return f"{n:07x}" + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4"[:33]


def _comment_event(number: int, comment: Comment) -> Event:
    return Event(
        name="issue_comment",
        action="created",
        comment=comment,
        issue_number=number,
        is_pull_request=True,
    )


def _gate_event(number: int, head: str) -> Event:
    return Event(
        name="workflow_run",
        action="completed",
        workflow_name="Gate",
        status="completed",
        conclusion="success",
        head_sha=head,
        pull_numbers=(number,),
    )


def _decide(event: Event, facts: Facts) -> tuple[DispatchDecision, dict[str, Any]]:
    d = decide(event, facts, POLICY)
    return d, {
        **recorded_to_wire(
            DecisionInputs(event, facts, POLICY), extract_instruction(facts.issue_body)
        ),
        "decision": dict(DispatchDecisionSerializer(d).data),
    }


def _record(
    repo: Repository,
    pull: PullRequest,
    decided: tuple[DispatchDecision, dict[str, Any]],
    *,
    days_ago: float,
) -> Decision:
    d, inputs = decided
    row = Decision.objects.create(
        pull=pull,
        repository=repo,
        lane=d.lane.value,
        ok=d.ok,
        reason=d.reason.value,
        detail=d.detail,
        activation_comment_id=d.activation_id,
        agent=d.agent,
        head_sha=d.head_sha,
        cap=d.cap,
        active=d.active,
        trace=d.trace,
        inputs=inputs,
        line=decision_line(d),
    )
    Decision.objects.filter(pk=row.pk).update(
        created_at=timezone.now() - timedelta(days=days_ago)
    )
    return row


@transaction.atomic
def load_demo(owner: Any = None) -> str:
    if Repository.objects.filter(full_name=DEMO_REPOSITORY).exists():
        return "already loaded"
    repo = Repository.objects.create(
        full_name=DEMO_REPOSITORY,
        is_active=False,
        agent_aliases=["codex"],
        automation_logins=list(POLICY.automation_logins),
    )
    keepalive = ("agents:keepalive",)

    # PR 12: a person asks before Gate finished, Gate succeeds, round 1 runs
    # and update-branch lands the agent's output.
    head = _sha(12)
    pull = PullRequest.objects.create(
        repository=repo,
        number=12,
        title="CSV importer: quoted commas",
        head_sha=head,
        labels=list(keepalive),
    )
    ask = Comment(
        id=2012345678,
        author="maria",
        body="@codex please pick this up",
        created_at="2026-01-05T10:00:00Z",
    )
    core = CorePull(number=12, head_sha=head, comments=(ask,))
    _record(
        repo,
        pull,
        _decide(
            _comment_event(12, ask),
            Facts(core, keepalive, GateConclusion.PENDING, issue_body=ISSUE),
        ),
        days_ago=3,
    )
    decided = _decide(
        _gate_event(12, head),
        Facts(core, keepalive, GateConclusion.SUCCESS, issue_body=ISSUE),
    )
    ok = decided[0]
    decision = _record(repo, pull, decided, days_ago=2.9)
    assert ok.round is not None
    assert ok.activation_id is not None
    instr_id = 2012348901
    worker = decide_worker(
        pr_number=12,
        head_sha=head,
        latest_instruction_id=instr_id,
        last_processed=LastProcessed(),
        labels=keepalive,
        other_active_runs=0,
        trace=ok.trace,
    )
    sync = decide_sync(
        worker_done=True,
        head_before=head,
        head_after=head,
        attempts=[SyncAttempt(SyncAction.UPDATE_BRANCH, True)],
        trace=ok.trace,
    )
    Round.objects.create(
        repository=repo,
        pull=pull,
        decision=decision,
        activation_comment_id=ok.activation_id,
        number=ok.round,
        trace=ok.trace,
        agent=ok.agent,
        status=Round.Status.DONE,
        instruction_comment_id=instr_id,
        instruction_author="maria",
        head_before=head,
        head_after=_sha(13),
        instruction_line=instruction_line(
            ok=True,
            author="maria",
            comment=instr_id,
            ack=True,
            head=head,
            trace=ok.trace,
        ),
        worker_line=worker_line(worker),
        sync_line=sync_line(sync),
    )
    PullRequest.objects.filter(pk=pull.pk).update(
        head_sha=_sha(13),
        last_processed_instruction_id=instr_id,
        last_processed_head_sha=head,
    )

    # PR 15: the cap of one run is full.
    labels = ("agents:keepalive", "agents:max-runs:1")
    pull = PullRequest.objects.create(
        repository=repo,
        number=15,
        title="Retry flaky uploads",
        head_sha=_sha(15),
        labels=list(labels),
    )
    ask = Comment(
        id=2012350000,
        author="maria",
        body="@codex continue",
        created_at="2026-01-06T09:00:00Z",
    )
    _record(
        repo,
        pull,
        _decide(
            _gate_event(15, _sha(15)),
            Facts(
                CorePull(15, _sha(15), (ask,)),
                labels,
                GateConclusion.SUCCESS,
                active_runs=1,
                issue_body=ISSUE,
            ),
        ),
        days_ago=1.5,
    )

    # PR 18: nobody wrote Scope/Tasks/Acceptance: the job fails.
    pull = PullRequest.objects.create(
        repository=repo,
        number=18,
        title="Bump dependencies",
        head_sha=_sha(18),
        labels=list(keepalive),
    )
    ask = Comment(
        id=2012360000, author="li", body="@codex go", created_at="2026-01-07T12:00:00Z"
    )
    _record(
        repo,
        pull,
        _decide(
            _comment_event(18, ask),
            Facts(
                CorePull(18, _sha(18), (ask,)),
                keepalive,
                GateConclusion.SUCCESS,
                issue_body="Please bump everything.",
            ),
        ),
        days_ago=0.8,
    )

    # PR 21: keepalive is not switched on.
    pull = PullRequest.objects.create(
        repository=repo, number=21, title="Docs typo", head_sha=_sha(21), labels=[]
    )
    ask = Comment(
        id=2012370000,
        author="li",
        body="@codex fix it",
        created_at="2026-01-08T08:00:00Z",
    )
    _record(
        repo,
        pull,
        _decide(
            _comment_event(21, ask),
            Facts(
                CorePull(21, _sha(21), (ask,)),
                (),
                GateConclusion.SUCCESS,
                issue_body=ISSUE,
            ),
        ),
        days_ago=0.2,
    )
    count = Decision.objects.filter(repository=repo).count()
    return f"repository {DEMO_REPOSITORY}: 4 pull requests, {count} decisions, 1 round"
