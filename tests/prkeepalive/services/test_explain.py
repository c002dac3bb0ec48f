"""prkeepalive.services.explain: the dry run is the core's explanation of the
pasted document, and a bad document is refused with its fields."""

from __future__ import annotations

import pytest

from core.errors import SchemaInvalid
from prkeepalive.core.explain import explain
from prkeepalive.services.explain import explanation_of

DOCUMENT = {
    "event": "issue_comment",
    "payload": {
        "action": "created",
        "issue": {"number": 3541, "pull_request": {"url": "u"}},
        "comment": {
            "id": 2012345678,
            "body": "@codex go",
            "user": {"login": "stranske", "type": "User"},
            "created_at": "2026-01-01T00:00:00Z",
            "reactions": {"rocket": 0, "+1": 1},
        },
    },
    "state": {
        "labels": ["agents:keepalive"],
        "gate": "pending",
        "activeRuns": 0,
        "pr": {"number": 3541, "headSha": "abc1234def5678"},
        "comments": [],
        "issueBody": "## Scope\nx\n## Tasks\n- [ ] y\n## Acceptance Criteria\n- z",
    },
}


def test_the_dry_run_is_the_cores_explanation_of_the_document() -> None:
    out = explanation_of(DOCUMENT)
    assert out == explain(DOCUMENT)
    assert out.lines[0].startswith(
        "DISPATCH: ok=false path=comment reason=gate-pending"
    )


def test_a_bad_document_is_refused_naming_its_fields() -> None:
    with pytest.raises(SchemaInvalid) as caught:
        explanation_of({"event": "issue_comment"})
    assert caught.value.problems
