"""Properties over generated inputs: every decision prints a line of the
contract's shape, ok=true exactly when reason=ok, and deciding is pure."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from prkeepalive.core.rules import decide_dispatch
from prkeepalive.core.summary import decision_line
from prkeepalive.core.types import (
    Comment,
    Event,
    GateConclusion,
    Policy,
    PullRequest,
    Reason,
)

LINE = re.compile(
    r"^DISPATCH: ok=(true|false) path=(comment|gate) reason=("
    + "|".join(re.escape(r.value) for r in Reason)
    + r") pr=#(\d+|\?) activation=(\d+|none) agent=\S+ head=([0-9a-f]{1,7}|unknown) "
    r"cap=[1-5] active=\d+ trace=(ka-\d+-r\d+|-)$"
)
POLICY = Policy(agent_aliases=("codex",), automation_logins=("bot",))

bodies = st.sampled_from(
    [
        "@codex go",
        "hello",
        "@codex\n## Tasks\n- [ ] x",
        "<!-- keepalive-round: 2 --><!-- keepalive-trace: t -->\n## Tasks\n- a",
        "",
    ]
)
comments = st.builds(
    Comment,
    id=st.integers(1, 10**10),
    author=st.sampled_from(["alice", "bot", "x[bot]", "Bob"]),
    body=bodies,
    author_type=st.sampled_from(["User", "Bot"]),
    reactions=st.sampled_from([(), ("rocket",), ("hooray",)]),
    created_at=st.sampled_from(["", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"]),
)
labels = st.lists(
    st.sampled_from(
        [
            "agents:keepalive",
            "agents:max-runs:0",
            "agents:max-runs:9",
            "agents:max-runs:x",
            "agent:codex",
            "bug",
        ]
    ),
    max_size=4,
)


@st.composite
def cases(
    draw: st.DrawFn,
) -> tuple[Event, PullRequest | None, tuple[str, ...], GateConclusion, int]:
    cs = tuple(draw(st.lists(comments, max_size=4)))
    head = draw(st.sampled_from(["", "abcdef0123456789"]))
    pr = draw(
        st.one_of(
            st.none(),
            st.just(
                PullRequest(
                    number=draw(st.integers(1, 10**5)), head_sha=head, comments=cs
                )
            ),
        )
    )
    if draw(st.booleans()):
        event = Event(
            name="issue_comment",
            action=draw(st.sampled_from(["created", "edited", "deleted"])),
            comment=draw(comments),
            issue_number=pr.number if pr else 5,
            is_pull_request=draw(st.booleans()),
        )
    else:
        event = Event(
            name="workflow_run",
            action="completed",
            workflow_name="Gate",
            status="completed",
            conclusion=draw(st.sampled_from(["success", "failure", ""])),
            head_sha=head,
            pull_numbers=(pr.number,) if pr else (),
        )
    return (
        event,
        pr,
        tuple(draw(labels)),
        draw(st.sampled_from(list(GateConclusion))),
        draw(st.integers(0, 6)),
    )


@settings(max_examples=300, deadline=None)
@given(cases(), st.sampled_from(["", "## Scope\nx"]))
def test_every_decision_prints_a_contract_line(case: tuple, issue_body: str) -> None:
    event, pr, labels_, gate, active = case
    args = {
        "pr": pr,
        "labels": labels_,
        "gate": gate,
        "activation": None,
        "active_runs": active,
        "policy": POLICY,
        "issue_body": issue_body,
    }
    first = decide_dispatch(event, **args)  # type: ignore[arg-type]
    again = decide_dispatch(event, **args)  # type: ignore[arg-type]
    assert first == again
    line = decision_line(first)
    assert LINE.match(line), line
    assert (" ok=true " in line) == (" reason=ok " in line) == first.ok
    assert first.ok == (first.trace != "")
    if first.ok:
        assert first.active < first.cap
