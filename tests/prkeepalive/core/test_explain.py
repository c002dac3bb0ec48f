"""The dry-run document: real-looking GitHub payloads in, exact lines out."""

from __future__ import annotations

import pytest

from core.errors import SchemaInvalid
from prkeepalive.core.explain import explain

HEAD = "abc1234def5678"
ISSUE = "## Scope\nx\n## Tasks\n- [ ] y\n## Acceptance Criteria\n- z"


def comment_payload(
    *, action: str = "created", author: str = "stranske", body: str = "@codex go"
) -> dict:
    return {
        "action": action,
        "issue": {"number": 3541, "pull_request": {"url": "u"}},
        "comment": {
            "id": 2012345678,
            "body": body,
            "user": {"login": author, "type": "User"},
            "created_at": "2026-01-01T00:00:00Z",
            "reactions": {"rocket": 0, "+1": 1},
        },
    }


def gate_payload(*, prs: list[dict] | None = None, conclusion: str = "success") -> dict:
    return {
        "action": "completed",
        "workflow_run": {
            "id": 1,
            "name": "Gate",
            "status": "completed",
            "conclusion": conclusion,
            "head_sha": HEAD,
            "pull_requests": [{"number": 3541}] if prs is None else prs,
        },
    }


def state(**kw: object) -> dict:
    base: dict[str, object] = {
        "labels": ["agents:keepalive"],
        "gate": "success",
        "activeRuns": 0,
        "pr": {"number": 3541, "headSha": HEAD},
        "comments": [],
        "issueBody": ISSUE,
    }
    base.update(kw)
    return base


def test_comment_lane_gate_pending_in_words() -> None:
    out = explain(
        {
            "event": "issue_comment",
            "payload": comment_payload(),
            "state": state(gate="pending"),
        }
    )
    assert out.lines == (
        "DISPATCH: ok=false path=comment reason=gate-pending pr=#3541 activation=2012345678 "
        "agent=codex head=abc1234 cap=2 active=0 trace=-",
    )
    assert out.words.startswith("The round did not run: Gate has not succeeded")


def test_full_round_lines() -> None:
    doc = {
        "event": "workflow_run",
        "payload": gate_payload(),
        "state": state(
            comments=[
                {
                    "id": 11,
                    "author": "stranske",
                    "body": "@codex go",
                    "createdAt": "2026-01-01",
                }
            ],
            lastProcessed={"instructionId": 5, "headSha": HEAD},
            worker={
                "done": True,
                "headAfter": HEAD,
                "attempts": [{"action": "update-branch", "headChanged": True}],
            },
        ),
    }
    out = explain(doc)
    assert out.lines == (
        "DISPATCH: ok=true path=gate reason=ok pr=#3541 activation=11 agent=codex head=abc1234 cap=2 active=0 trace=ka-3541-r1",
        "WORKER: action=execute reason=new-instruction pr=#3541 head=abc1234 instr=11 trace=ka-3541-r1",
        "SYNC: action=update-branch head_changed=true trace=ka-3541-r1",
    )


def test_sync_escalates_when_no_rung_moves_the_head() -> None:
    doc = {
        "event": "workflow_run",
        "payload": gate_payload(),
        "state": state(
            comments=[{"id": 11, "author": "stranske", "body": "@codex go"}],
            worker={"done": True},
        ),
    }
    assert (
        explain(doc).lines[-1]
        == "SYNC: action=escalate head_changed=false trace=ka-3541-r1"
    )


def test_fork_pr_through_explain() -> None:
    doc = {
        "event": "workflow_run",
        "payload": gate_payload(prs=[]),
        "state": state(
            comments=[{"id": 11, "author": "stranske", "body": "@codex go"}]
        ),
    }
    assert explain(doc).decision.ok  # type: ignore[union-attr]
    doc["state"]["pr"] = {"number": 3541, "headSha": "0" * 40}  # type: ignore[index]
    assert " reason=no-linked-pr pr=#? " in explain(doc).lines[0]


def test_existing_rocket_from_state_comments() -> None:
    doc = {
        "event": "issue_comment",
        "payload": comment_payload(),
        "state": state(
            comments=[
                {
                    "id": 2012345678,
                    "author": "stranske",
                    "body": "@codex go",
                    "reactions": ["rocket"],
                }
            ]
        ),
    }
    assert " reason=lock-held " in explain(doc).lines[0]


def test_unhandled_event_explained() -> None:
    out = explain({"event": "push", "payload": {}, "state": {}})
    assert not out.handled and out.lines == () and "push" in out.words


def test_invalid_document_lists_every_problem() -> None:
    with pytest.raises(SchemaInvalid) as info:
        explain(
            {
                "event": "issue_comment",
                "payload": {"issue": {"number": "x"}, "comment": {"id": 1, "user": {}}},
                "state": {},
            }
        )
    paths = [p.path for p in info.value.problems]
    assert paths == ["payload.comment.user.login", "payload.issue.number"]


def test_invalid_state_fields() -> None:
    with pytest.raises(SchemaInvalid) as info:
        explain(
            {
                "event": "issue_comment",
                "payload": comment_payload(),
                "state": {"gate": "green", "labels": "x"},
            }
        )
    assert {p.path for p in info.value.problems} == {"state.gate", "state.labels"}
