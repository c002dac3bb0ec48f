"""The named dispatch rules and their order, the one routing of an event,
what the gatherers read, and the one wire form of the decision inputs."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from core.errors import SchemaInvalid
from prkeepalive.core import rules
from prkeepalive.core.facts import Facts, decide
from prkeepalive.core.inputs import (
    DecisionInputs,
    inputs_from_wire,
    inputs_to_wire,
    recorded_instruction,
    recorded_request,
    recorded_to_wire,
    round_instruction,
)
from prkeepalive.core.lanes import route
from prkeepalive.core.reading import (
    gate_of_event,
    gate_of_runs,
    instruction_issue,
    latest_run,
    needs_head_commit_pulls,
    worth_recording,
)
from prkeepalive.core.types import (
    Comment,
    Event,
    GateConclusion,
    Lane,
    Policy,
    PullRequest,
    Reason,
    RecordedRound,
)

HEAD = "abc1234def5678"
POLICY = Policy(automation_logins=("bot",))
ISSUE = "## Scope\nFix it.\n## Tasks\n- [ ] test\n## Acceptance Criteria\n- green"
ACTIVATION = Comment(id=20, author="Stranske", body="@codex please continue")


def comment_event(action: str = "created") -> Event:
    return Event(
        name="issue_comment",
        action=action,
        comment=ACTIVATION,
        issue_number=7,
        is_pull_request=True,
    )


def gate_event(conclusion: str = "success") -> Event:
    return Event(
        name="workflow_run",
        action="completed",
        workflow_name="Gate",
        status="completed",
        conclusion=conclusion,
        head_sha=HEAD,
        pull_numbers=(7,),
    )


def facts(**kw: object) -> Facts:
    base: dict[str, object] = {
        "pr": PullRequest(7, HEAD, (ACTIVATION,)),
        "labels": ("agents:keepalive",),
        "gate": GateConclusion.SUCCESS,
        "issue_body": ISSUE,
    }
    base.update(kw)
    return Facts(**base)  # type: ignore[arg-type]


def test_the_rules_are_applied_in_the_documented_order() -> None:
    assert [r.__name__ for r in rules.COMMENT_LANE_RULES] == [
        "comment_is_new",
        "comment_on_pull",
        "pull_labelled",
        "comment_present",
        "author_may_activate",
        "gate_succeeded",
    ]
    assert [r.__name__ for r in rules.GATE_LANE_RULES] == [
        "run_succeeded",
        "run_has_pull",
        "pull_labelled",
        "head_not_started",
        "activation_found",
    ]
    assert [r.__name__ for r in rules.ACTIVATION_RULES] == [
        "markers_complete",
        "no_lock_reaction",
        "no_recorded_lock",
        "not_sync_required",
        "under_cap",
        "instruction_present",
    ]
    for rule in (
        *rules.COMMENT_LANE_RULES,
        *rules.GATE_LANE_RULES,
        *rules.ACTIVATION_RULES,
    ):
        assert f"``{rule.__name__}``" in (rules.__doc__ or ""), rule.__name__


def test_the_first_unmet_rule_decides_when_several_are_unmet() -> None:
    """No label and Gate pending: the label rule comes first."""
    d = decide(comment_event(), facts(labels=(), gate=GateConclusion.PENDING), POLICY)
    assert d.reason is Reason.MISSING_LABEL
    d = decide(comment_event(), facts(gate=GateConclusion.PENDING), POLICY)
    assert d.reason is Reason.GATE_PENDING and d.activation_id == ACTIVATION.id


def test_a_gate_run_of_a_head_a_round_started_from_does_not_continue_it() -> None:
    instruction = Comment(
        id=30,
        author="bot",
        body="<!-- keepalive-round: 1 -->\n<!-- keepalive-trace: ka-7-r1 -->\nGo.",
    )
    started = RecordedRound(1, "ka-7-r1", ACTIVATION.id, instruction.id, HEAD)
    f = facts(pr=PullRequest(7, HEAD, (ACTIVATION, instruction)), rounds=(started,))
    d = decide(gate_event(), f, POLICY)
    assert (d.ok, d.reason) == (False, Reason.LOCK_HELD)
    assert "already started from this head" in d.detail
    moved = facts(
        pr=PullRequest(7, "f00d" * 10, (ACTIVATION, instruction)), rounds=(started,)
    )
    assert "already started" not in decide(gate_event(), moved, POLICY).detail


def test_route_names_the_lane_the_worker_or_why_nothing_handles_it() -> None:
    assert route(comment_event(), POLICY, "Agent").lane is Lane.COMMENT
    assert route(gate_event(), POLICY, "Agent").lane is Lane.GATE
    worker = Event(name="workflow_run", action="completed", workflow_name="agent ")
    routed = route(worker, POLICY, "Agent")
    assert routed.worker_completion and routed.lane is None and routed.handled
    ignored = route(Event(name="push"), POLICY, "Agent")
    assert not ignored.handled and ignored.ignored == "event push is not handled"


def test_what_the_gatherers_read() -> None:
    assert needs_head_commit_pulls(gate_event()) is False
    fork = Event(name="workflow_run", action="completed", head_sha=HEAD)
    assert needs_head_commit_pulls(fork) is True
    assert gate_of_event(comment_event(), Lane.COMMENT) is None
    assert gate_of_event(gate_event("failure"), Lane.GATE) is GateConclusion.FAILURE
    assert instruction_issue("see #12 and #13") == 12
    assert instruction_issue(ISSUE + "\nsee #12") is None
    assert instruction_issue("a/b#12") is None


@dataclass(frozen=True)
class Run:
    id: int
    name: str
    status: str
    conclusion: str
    created_at: str


def test_the_latest_gate_run_decides_the_gate_of_a_head() -> None:
    runs = [
        Run(1, "Gate", "completed", "failure", "2026-01-01T00:00:00Z"),
        Run(3, "gate ", "in_progress", "", "2026-01-02T00:00:00Z"),
        Run(2, "Other", "completed", "success", "2026-01-03T00:00:00Z"),
    ]
    assert gate_of_runs(runs, "Gate") is GateConclusion.PENDING
    assert latest_run(runs, "Gate", completed=True) == runs[0]
    assert gate_of_runs([], "Gate") is GateConclusion.PENDING


def test_the_reconciler_records_a_refusal_only_when_its_reason_changed() -> None:
    refused = decide(comment_event(), facts(labels=()), POLICY)
    assert worth_recording(refused, None)
    assert not worth_recording(refused, "missing-label")
    assert worth_recording(refused, "gate-pending")
    assert worth_recording(decide(comment_event(), facts(), POLICY), "ok")


# The recorded document of a comment-lane decision, key by key and byte by
# byte as decisions have always stored it.
RECORDED = (
    '{"event": "issue_comment", "payload": {"action": "created", "issue": '
    '{"number": 7, "pull_request": {}}, "comment": {"id": 20, "body": "@codex '
    'please continue", "user": {"login": "Stranske", "type": "User"}, '
    '"created_at": "", "reactions": []}}, "state": {"labels": ["agents:keepalive"], '
    '"gate": "success", "activeRuns": 0, "comments": [{"id": 20, "author": '
    '"Stranske", "authorType": "User", "body": "@codex please continue", '
    '"reactions": [], "createdAt": ""}], "issueBody": "## Scope\\nFix it.\\n## '
    'Tasks\\n- [ ] test\\n## Acceptance Criteria\\n- green", "policy": '
    '{"agentAliases": ["codex"], "allowedAuthors": [], "automationLogins": '
    '["bot"], "gateWorkflow": "Gate"}, "rounds": [{"number": 1, "trace": '
    '"ka-7-r1", "activationId": 5, "instructionId": null, "headBefore": "x"}], '
    '"pr": {"number": 7, "headSha": "abc1234def5678"}}, "instruction": "I"}'
)


def test_recorded_inputs_keep_their_bytes() -> None:
    inputs = DecisionInputs(
        comment_event(),
        facts(rounds=(RecordedRound(1, "ka-7-r1", 5, None, "x"),)),
        POLICY,
    )
    assert json.dumps(recorded_to_wire(inputs, "I")) == RECORDED
    document = json.loads(RECORDED)
    assert recorded_instruction(document) == "I"
    assert recorded_instruction({}) == ""
    assert recorded_request({}) is None
    assert set(recorded_request(document) or {}) == {"event", "payload", "state"}


@pytest.mark.parametrize(
    "inputs",
    [
        DecisionInputs(comment_event(), facts(), POLICY),
        DecisionInputs(
            gate_event(),
            facts(
                rounds=(RecordedRound(1, "ka-7-r1", 5, 9, HEAD),),
                head_commit_pulls=(7,),
                active_runs=2,
            ),
            Policy(allowed_authors=("stranske",), gate_workflow="CI"),
        ),
    ],
)
def test_decision_inputs_read_back_from_their_wire_form(inputs: DecisionInputs) -> None:
    assert inputs_from_wire(inputs_to_wire(inputs)) == inputs


def test_a_malformed_wire_form_names_every_problem() -> None:
    with pytest.raises(SchemaInvalid) as caught:
        inputs_from_wire(
            {
                "event": "issue_comment",
                "payload": {"issue": {"number": "seven"}},
                "state": {"gate": "x", "labels": 3},
            }
        )
    assert {p.path for p in caught.value.problems} == {
        "payload.comment",
        "payload.issue.number",
        "state.gate",
        "state.labels",
    }


def test_a_dispatched_round_posts_the_activations_instruction() -> None:
    inputs = DecisionInputs(comment_event(), facts(), POLICY)
    d = decide(inputs.event, inputs.facts, inputs.policy)
    assert d.ok
    assert "Fix it." in round_instruction(inputs, d)
