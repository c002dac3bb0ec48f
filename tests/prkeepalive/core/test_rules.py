"""Dispatch decisions of both lanes: the contract's test matrix, its example
lines, and the edge cases around people, PRs, labels and markers."""

from __future__ import annotations

import pytest

from prkeepalive.core.facts import resolve_pr
from prkeepalive.core.instruction import render_instruction
from prkeepalive.core.labels import latest_human_activation, normalise_login, run_cap
from prkeepalive.core.lanes import lane_for, with_lock_held
from prkeepalive.core.markers import render_markers
from prkeepalive.core.rules import decide_dispatch
from prkeepalive.core.summary import decision_line, instruction_line
from prkeepalive.core.types import (
    Comment,
    Event,
    GateConclusion,
    Lane,
    Policy,
    PullRequest,
    Reason,
)

HEAD = "abc1234def5678"
POLICY = Policy(
    agent_aliases=("codex",),
    automation_logins=("stranske-automation-bot",),
)
ISSUE = "## Scope\nFix the parser.\n## Tasks\n- [ ] add a test\n## Acceptance Criteria\n- green"
LABELS = ("agents:keepalive",)


def human(
    cid: int = 2012345678, body: str = "@codex please continue", **kw: object
) -> Comment:
    return Comment(id=cid, author=str(kw.pop("author", "Stranske")), body=body, **kw)  # type: ignore[arg-type]


def comment_event(
    c: Comment | None, *, action: str = "created", is_pr: bool = True
) -> Event:
    return Event(
        name="issue_comment",
        action=action,
        comment=c,
        issue_number=3541,
        is_pull_request=is_pr,
    )


def gate_event(
    *,
    conclusion: str = "success",
    prs: tuple[int, ...] = (3541,),
    activation: int | None = None,
) -> Event:
    return Event(
        name="workflow_run",
        action="completed",
        workflow_name="Gate",
        status="completed",
        conclusion=conclusion,
        head_sha=HEAD,
        pull_numbers=prs,
        activation_comment_id=activation,
    )


def pr(*comments: Comment) -> PullRequest:
    return PullRequest(number=3541, head_sha=HEAD, comments=comments)


def decide(event: Event, **kw: object):  # type: ignore[no-untyped-def]
    args: dict[str, object] = {
        "pr": pr(),
        "labels": LABELS,
        "gate": GateConclusion.SUCCESS,
        "activation": None,
        "active_runs": 0,
        "policy": POLICY,
        "issue_body": ISSUE,
    }
    args.update(kw)
    return decide_dispatch(event, **args)  # type: ignore[arg-type]


# --- the test matrix ---------------------------------------------------------


def test_matrix_human_agent_before_gate() -> None:
    d = decide(comment_event(human()), gate=GateConclusion.PENDING)
    assert decision_line(d) == (
        "DISPATCH: ok=false path=comment reason=gate-pending pr=#3541 "
        "activation=2012345678 agent=codex head=abc1234 cap=2 active=0 trace=-"
    )


def test_matrix_gate_success_with_prior_activation() -> None:
    activation = human()
    d = decide(gate_event(), pr=pr(activation))
    assert d.ok and d.lane is Lane.GATE and d.activation_id == activation.id
    assert decision_line(d) == (
        "DISPATCH: ok=true path=gate reason=ok pr=#3541 activation=2012345678 "
        "agent=codex head=abc1234 cap=2 active=0 trace=ka-3541-r1"
    )
    line = instruction_line(
        ok=True,
        author="stranske",
        comment=2012348901,
        ack=True,
        head=HEAD,
        trace=d.trace,
    )
    assert line.startswith("INSTRUCTION: ok=true author=stranske ")


def test_matrix_cap_reached() -> None:
    d = decide(gate_event(), pr=pr(human()), active_runs=2)
    assert d.reason is Reason.CAP_REACHED
    assert " reason=cap-reached " in decision_line(d)
    assert decision_line(d).endswith("cap=2 active=2 trace=-")


def test_matrix_no_activation_found_on_gate() -> None:
    bot = Comment(id=5, author="stranske-automation-bot", body="@codex status")
    d = decide(gate_event(), pr=pr(bot))
    assert decision_line(d).startswith(
        "DISPATCH: ok=false path=gate reason=no-activation-found pr=#3541 activation=none"
    )


def test_matrix_instruction_empty_fails_job() -> None:
    d = decide(gate_event(), pr=pr(human()), issue_body="no sections here")
    assert d.reason is Reason.INSTRUCTION_EMPTY and d.fails_job
    assert " reason=instruction-empty " in decision_line(d)


# --- the example lines -------------------------------------------------------


def test_example_dispatch_line_is_golden() -> None:
    # Round 3 continues from round 2's instruction: for rounds after the
    # first the activation is the instruction comment (contract section 4).
    first = human(cid=2012300000)
    instruction = Comment(
        id=2012345678,
        author="stranske-automation-bot",
        body=render_instruction(
            round=2, trace="ka-3541-r2", agent="codex", segments="#### Scope\nx"
        ),
    )
    d = decide(gate_event(), pr=pr(first, instruction), active_runs=1)
    assert decision_line(d) == (
        "DISPATCH: ok=true path=gate reason=ok pr=#3541 activation=2012345678 "
        "agent=codex head=abc1234 cap=2 active=1 trace=ka-3541-r3"
    )


# --- comment lane edge cases ------------------------------------------------


@pytest.mark.parametrize("action", ["edited", "deleted"])
def test_edited_or_deleted_comment_never_activates(action: str) -> None:
    d = decide(comment_event(human(), action=action))
    assert d.reason is Reason.NO_HUMAN_ACTIVATION and d.activation_id is None
    assert action in d.detail


def test_comment_on_issue_that_is_not_a_pr() -> None:
    d = decide(comment_event(human(), is_pr=False), pr=None)
    assert decision_line(d).startswith(
        "DISPATCH: ok=false path=comment reason=no-linked-pr pr=#?"
    )


@pytest.mark.parametrize(
    ("author", "author_type"),
    [
        ("github-actions[bot]", "Bot"),
        ("Stranske-Automation-Bot[bot]", "User"),
        ("STRANSKE-AUTOMATION-BOT", "User"),
        ("renovate", "Bot"),
    ],
)
def test_bot_and_automation_authors_are_not_activations(
    author: str, author_type: str
) -> None:
    c = Comment(id=9, author=author, author_type=author_type, body="@codex go")
    assert decide(comment_event(c)).reason is Reason.NO_HUMAN_ACTIVATION


def test_login_normalisation() -> None:
    assert (
        normalise_login(" Stranske-Automation-Bot[bot] ") == "stranske-automation-bot"
    )


def test_author_not_on_allowlist() -> None:
    policy = Policy(agent_aliases=("codex",), allowed_authors=("Stranske",))
    ok = decide(comment_event(human(author="stranske")), policy=policy)
    refused = decide(comment_event(human(author="mallory")), policy=policy)
    assert ok.ok
    assert refused.reason is Reason.NO_HUMAN_ACTIVATION and "mallory" in refused.detail


def test_comment_without_mention_is_not_an_activation() -> None:
    for body in ("please continue", "mail me@codex.io", "@codex-bot hi"):
        assert (
            decide(comment_event(human(body=body))).reason is Reason.NO_HUMAN_ACTIVATION
        )


def test_comment_with_hidden_markers_is_not_a_human_activation() -> None:
    body = "<!-- keepalive-round: 2 -->\n@codex go"
    assert decide(comment_event(human(body=body))).reason is Reason.NO_HUMAN_ACTIVATION


def test_missing_label() -> None:
    assert decide(comment_event(human()), labels=()).reason is Reason.MISSING_LABEL
    assert (
        decide(gate_event(), labels=("agents:max-runs:3",)).reason
        is Reason.MISSING_LABEL
    )


def test_comment_lane_dispatches_when_gate_already_succeeded() -> None:
    d = decide(comment_event(human()))
    assert d.ok and d.lane is Lane.COMMENT and d.trace == "ka-3541-r1" and d.round == 1


def test_visible_lock_reports_lock_held() -> None:
    d = decide(comment_event(human(reactions=("rocket",))))
    assert d.reason is Reason.LOCK_HELD


def test_lost_lock_race_reports_lock_held() -> None:
    d = with_lock_held(decide(comment_event(human())))
    assert decision_line(d) == (
        "DISPATCH: ok=false path=comment reason=lock-held pr=#3541 "
        "activation=2012345678 agent=codex head=abc1234 cap=2 active=0 trace=-"
    )


# --- gate lane edge cases -----------------------------------------------------


@pytest.mark.parametrize("conclusion", ["failure", "cancelled", ""])
def test_gate_not_success_is_gate_failed(conclusion: str) -> None:
    assert decide(gate_event(conclusion=conclusion)).reason is Reason.GATE_FAILED


def test_fork_pr_resolved_by_head_sha() -> None:
    event = gate_event(prs=())
    known = PullRequest(number=3541, head_sha=HEAD, comments=(human(),))
    resolved = resolve_pr(event, known)
    assert resolved == known
    assert decide(event, pr=resolved).ok
    other = PullRequest(number=3541, head_sha="ffffffff")
    assert resolve_pr(event, other) is None
    assert decide(event, pr=None).reason is Reason.NO_LINKED_PR


def test_gate_lane_explicit_instruction_activation_without_markers() -> None:
    bot = Comment(id=77, author="stranske-automation-bot", body="@codex keep going")
    d = decide(gate_event(activation=77), pr=pr(bot), activation=bot)
    assert d.reason is Reason.MARKERS_MISSING and d.activation_id == 77


def test_gate_lane_continues_from_an_instruction_comment() -> None:
    body = render_instruction(
        round=3, trace="ka-3541-r3", agent="codex", segments="#### Tasks\n- a"
    )
    bot = Comment(id=78, author="stranske-automation-bot", body=body)
    d = decide(gate_event(activation=78), pr=pr(bot), activation=bot)
    assert d.ok and d.round == 4 and d.trace == "ka-3541-r4"


def test_fallback_picks_most_recent_human_activation() -> None:
    old = human(cid=1, created_at="2026-01-01T00:00:00Z")
    new = human(cid=2, created_at="2026-01-02T00:00:00Z")
    marked = human(
        cid=3,
        body="<!-- keepalive-trace: x -->@codex",
        created_at="2026-01-03T00:00:00Z",
    )
    assert latest_human_activation([new, marked, old], POLICY) == new


def test_unhandled_events_have_no_lane() -> None:
    assert lane_for(Event(name="push"), POLICY) is None
    other = Event(name="workflow_run", action="completed", workflow_name="CI")
    assert lane_for(other, POLICY) is None
    with pytest.raises(ValueError, match="not the Gate"):
        decide(other)


# --- run cap ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("labels", "cap"),
    [
        ((), 2),
        (("agents:max-runs:3",), 3),
        (("agents:max-runs:0",), 1),
        (("agents:max-runs:9",), 5),
        (("agents:max-runs:abc",), 2),
        (("agents:max-runs:",), 2),
        (("Agents:Max-Runs:4 ",), 4),
        (("agents:max-runs:4", "agents:max-runs:3"), 3),
    ],
)
def test_run_cap_default_clamp_and_malformed(labels: tuple[str, ...], cap: int) -> None:
    assert run_cap(labels) == cap


def test_cap_zero_label_still_allows_one_run() -> None:
    labels = ("agents:keepalive", "agents:max-runs:0")
    assert decide(comment_event(human()), labels=labels).ok
    d = decide(comment_event(human()), labels=labels, active_runs=1)
    assert decision_line(d).endswith("cap=1 active=1 trace=-")


def test_cap_is_checked_before_the_lock_and_does_not_burn_it() -> None:
    d = decide(comment_event(human()), active_runs=5)
    assert d.reason is Reason.CAP_REACHED and not d.ok


def test_agent_label_picks_alias() -> None:
    policy = Policy(agent_aliases=("codex", "claude"))
    d = decide(
        comment_event(human(body="@claude go")),
        labels=("agents:keepalive", "agent:claude"),
        policy=policy,
    )
    assert d.ok and d.agent == "claude"


def test_markers_render_in_one_line() -> None:
    assert render_markers(round=3, trace="ka-1-r3") == (
        "<!-- codex-keepalive-marker --> <!-- codex-keepalive-round: 3 --> "
        "<!-- codex-keepalive-trace: ka-1-r3 -->"
    )


def gate_choice(comments: list[Comment], policy: Policy) -> Comment | None:
    from prkeepalive.core.lanes import gate_activation

    return gate_activation(pr(*comments), policy)[0]


def test_gate_lane_continues_from_the_latest_instruction() -> None:
    body = render_instruction(
        round=1, trace="ka-3541-r1", agent="codex", segments="#### Tasks\n- a"
    )
    first = human(cid=10)
    instr = Comment(id=20, author="stranske-automation-bot", body=body)
    assert gate_choice([first, instr], POLICY) == instr
    assert gate_choice([first], POLICY) == first
    # a person's @codex after the instruction does not start another round
    again = human(cid=30)
    assert gate_choice([first, instr, again], POLICY) == instr
