"""Pages, the dry-run API and the REST lists of PR keepalive."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from prkeepalive.models import Decision, PullRequest, Repository, Round
from tests.api_errors import error_fields

pytestmark = pytest.mark.django_db

HEAD = "abc1234def5678"
ISSUE = "## Scope\nx\n## Tasks\n- [ ] y\n## Acceptance Criteria\n- z"


def explain_doc(**state: Any) -> dict[str, Any]:
    return {
        "event": "issue_comment",
        "payload": {
            "action": "created",
            "issue": {"number": 7, "pull_request": {}},
            "comment": {
                "id": 99,
                "body": "@codex go",
                "user": {"login": "alice", "type": "User"},
            },
        },
        "state": {
            "labels": ["agents:keepalive"],
            "gate": "success",
            "activeRuns": 0,
            "pr": {"number": 7, "headSha": HEAD},
            "issueBody": ISSUE,
            **state,
        },
    }


@pytest.fixture
def recorded(db: Any) -> PullRequest:
    repo = Repository.objects.create(full_name="acme/widgets")
    pull = PullRequest.objects.create(
        repository=repo,
        number=7,
        title="Parser fix",
        head_sha=HEAD,
        labels=["agents:keepalive"],
    )
    Decision.objects.create(
        pull=pull,
        repository=repo,
        lane="comment",
        ok=False,
        reason="gate-pending",
        detail="Gate has not succeeded on this head yet (pending); the round runs when Gate succeeds",
        activation_comment_id=99,
        agent="codex",
        head_sha=HEAD,
        cap=2,
        active=0,
        line="DISPATCH: ok=false path=comment reason=gate-pending pr=#7 activation=99 agent=codex head=abc1234 cap=2 active=0 trace=-",
    )
    ok = Decision.objects.create(
        pull=pull,
        repository=repo,
        lane="gate",
        ok=True,
        reason="ok",
        detail="every condition holds",
        activation_comment_id=99,
        agent="codex",
        head_sha=HEAD,
        cap=2,
        active=0,
        trace="ka-7-r1",
        line="DISPATCH: ok=true path=gate reason=ok pr=#7 activation=99 agent=codex head=abc1234 cap=2 active=0 trace=ka-7-r1",
    )
    Round.objects.create(
        repository=repo,
        pull=pull,
        decision=ok,
        activation_comment_id=99,
        number=1,
        trace="ka-7-r1",
        status=Round.Status.RUNNING,
        instruction_comment_id=100,
        instruction_line="INSTRUCTION: ok=true author=stranske comment=100 ack=ok head=abc1234 trace=ka-7-r1",
        worker_line="WORKER: action=execute reason=new-instruction pr=#7 head=abc1234 instr=100 trace=ka-7-r1",
    )
    return pull


def test_explain_api_returns_decision_and_lines_and_writes_nothing(owner: Any) -> None:
    api = APIClient()
    api.force_authenticate(owner)
    response = api.post(
        "/api/prkeepalive/explain", explain_doc(gate="pending"), format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert (
        body["decision"]["reason"] == "gate-pending" and body["decision"]["ok"] is False
    )
    assert body["lines"] == [
        "DISPATCH: ok=false path=comment reason=gate-pending pr=#7 activation=99 agent=codex head=abc1234 cap=2 active=0 trace=-"
    ]
    assert body["words"].startswith("The round did not run: Gate has not succeeded")
    assert Decision.objects.count() == 0 and Round.objects.count() == 0


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        ({"labels": []}, "missing-label"),
        ({"activeRuns": 2}, "cap-reached"),
        (
            {"labels": ["agents:keepalive", "agents:max-runs:0"], "activeRuns": 1},
            "cap-reached",
        ),
        ({"labels": ["agents:keepalive", "agents:max-runs:9"], "activeRuns": 4}, "ok"),
        (
            {"labels": ["agents:keepalive", "agents:max-runs:abc"], "activeRuns": 2},
            "cap-reached",
        ),
        ({"issueBody": "nothing"}, "instruction-empty"),
        (
            {
                "comments": [
                    {
                        "id": 99,
                        "author": "alice",
                        "body": "@codex go",
                        "reactions": ["rocket"],
                    }
                ]
            },
            "lock-held",
        ),
        ({"policy": {"allowedAuthors": ["bob"]}}, "no-human-activation"),
    ],
)
def test_explain_api_drives_the_matrix(
    owner: Any, state: dict[str, Any], reason: str
) -> None:
    api = APIClient()
    api.force_authenticate(owner)
    body = api.post(
        "/api/prkeepalive/explain", explain_doc(**state), format="json"
    ).json()
    assert body["decision"]["reason"] == reason
    assert f" reason={reason} " in body["lines"][0]


def test_explain_api_bad_document_is_400_with_fields(owner: Any) -> None:
    api = APIClient()
    api.force_authenticate(owner)
    response = api.post(
        "/api/prkeepalive/explain",
        {
            "event": "issue_comment",
            "payload": {"issue": {"number": "x"}},
            "state": {"gate": "green"},
        },
        format="json",
    )
    assert response.status_code == 400
    fields = error_fields(response)
    assert set(fields) == {
        "$.payload.comment",
        "$.payload.issue.number",
        "$.state.gate",
    }


def test_explain_api_needs_a_user() -> None:
    assert APIClient().post(
        "/api/prkeepalive/explain", explain_doc(), format="json"
    ).status_code in (401, 403)


def test_rest_lists_of_decisions_and_rounds(owner: Any, recorded: PullRequest) -> None:
    api = APIClient()
    api.force_authenticate(owner)
    decisions = api.get("/api/prkeepalive/repos/acme/widgets/pulls/7/decisions").json()
    assert [d["reason"] for d in decisions["decisions"]] == ["ok", "gate-pending"]
    rounds = api.get("/api/prkeepalive/repos/acme/widgets/pulls/7/rounds").json()[
        "rounds"
    ]
    assert rounds[0]["trace"] == "ka-7-r1" and len(rounds[0]["lines"]) == 2
    assert (
        api.get("/api/prkeepalive/repos/acme/widgets/pulls/8/rounds").status_code == 404
    )
    assert (
        api.get(
            "/api/prkeepalive/repos/acme/widgets/pulls/7/rounds?limit=0"
        ).status_code
        == 400
    )


def test_index_page_lists_pull_with_state_and_chart(
    client: Any, owner: Any, recorded: PullRequest
) -> None:
    client.force_login(owner)
    html = client.get("/prkeepalive/").content.decode()
    assert 'href="/prkeepalive/acme/widgets/pull/7/"' in html
    assert "round 1: running" in html
    assert 'id="reason-histogram-data"' in html and "prkeepalive/js/index.js" in html
    assert "not built yet" not in html and "<script>" not in html


def test_pull_page_timeline_and_why(
    client: Any, owner: Any, recorded: PullRequest
) -> None:
    Decision.objects.filter(reason="ok").delete()
    client.force_login(owner)
    html = client.get("/prkeepalive/acme/widgets/pull/7/").content.decode()
    assert "Why didn&#x27;t it run?" in html or "Why didn't it run?" in html
    assert "Gate has not succeeded on this head yet" in html
    assert "DISPATCH: ok=false path=comment reason=gate-pending pr=#7" in html
    assert "WORKER: action=execute reason=new-instruction pr=#7" in html


def test_pull_page_explain_form(client: Any, owner: Any, recorded: PullRequest) -> None:
    import json

    client.force_login(owner)
    doc = explain_doc(activeRuns=2)
    response = client.post(
        "/prkeepalive/acme/widgets/pull/7/",
        {
            "event": "issue_comment",
            "payload": json.dumps(doc["payload"]),
            "state": json.dumps(doc["state"]),
        },
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert (
        "reason=cap-reached" in html
        and "2 orchestrator run(s) are queued or running and the cap is 2" in html
    )
    bad = client.post(
        "/prkeepalive/acme/widgets/pull/7/",
        {"event": "issue_comment", "payload": "{", "state": "{}"},
    )
    assert bad.status_code == 400 and "is not valid JSON" in bad.content.decode()
    assert Decision.objects.count() == 2


def test_pages_need_login(client: Any, recorded: PullRequest) -> None:
    assert client.get("/prkeepalive/").status_code == 302
    assert client.get("/prkeepalive/acme/widgets/pull/7/").status_code == 302


def test_demo_loads_once_and_shows_every_kind_of_decision(
    client: Any, owner: Any, settings: Any
) -> None:
    from prkeepalive.demo import load_demo

    assert "prkeepalive.demo.load_demo" in settings.DEMO_DATA_LOADERS
    assert load_demo(owner=owner).startswith(
        "repository demo-org/widgets: 4 pull requests, 5 decisions"
    )
    assert load_demo(owner=owner) == "already loaded"
    assert sorted(Decision.objects.values_list("reason", flat=True)) == sorted(
        ["gate-pending", "ok", "cap-reached", "instruction-empty", "missing-label"]
    )
    assert (
        Round.objects.get().sync_line
        == "SYNC: action=update-branch head_changed=true trace=ka-12-r1"
    )
    client.force_login(owner)
    assert client.get("/prkeepalive/").status_code == 200
    assert (
        "Why didn"
        in client.get("/prkeepalive/demo-org/widgets/pull/18/").content.decode()
    )


def test_demo_decisions_keep_the_decision_as_the_api_writes_it(owner: Any) -> None:
    """The demo's stored inputs carry the decision in the explain API's shape
    (booleans and numbers as such), not every value turned into text."""
    from prkeepalive.demo import load_demo

    load_demo(owner=owner)
    dispatched = Decision.objects.get(reason="ok").inputs["decision"]
    assert dispatched["ok"] is True
    assert dispatched["prNumber"] == 12
    assert dispatched["round"] == 1
    assert dispatched["failsJob"] is False


def test_overview_tile_links_to_keepalive(
    client: Any, owner: Any, recorded: PullRequest
) -> None:
    client.force_login(owner)
    html = client.get("/").content.decode()
    assert 'href="/prkeepalive/"' in html
    assert '1 <span class="unit">of 2 dispatched</span>' in html
    assert "last not run: <code>gate-pending</code> on #7" in html


GATE_PAYLOAD = {
    "action": "completed",
    "workflow_run": {
        "name": "Gate",
        "status": "completed",
        "conclusion": "success",
        "head_sha": HEAD,
        "pull_requests": [{"number": 7}],
    },
}
HUMAN = {
    "id": 99,
    "author": "alice",
    "body": "@codex go",
    "createdAt": "2026-01-01T00:00:00Z",
}


@pytest.mark.parametrize(
    ("event", "payload", "state", "expected"),
    [
        (
            "issue_comment",
            None,
            {"gate": "pending"},
            ["DISPATCH: ok=false path=comment reason=gate-pending pr=#7 "],
        ),
        (
            "workflow_run",
            GATE_PAYLOAD,
            {"comments": [HUMAN]},
            ["DISPATCH: ok=true path=gate reason=ok pr=#7 activation=99 "],
        ),
        (
            "workflow_run",
            GATE_PAYLOAD,
            {"comments": [HUMAN], "activeRuns": 2},
            [
                "DISPATCH: ok=false path=gate reason=cap-reached ",
                "cap=2 active=2 trace=-",
            ],
        ),
        (
            "workflow_run",
            GATE_PAYLOAD,
            {"comments": []},
            ["DISPATCH: ok=false path=gate reason=no-activation-found "],
        ),
        (
            "workflow_run",
            GATE_PAYLOAD,
            {"comments": [HUMAN], "issueBody": ""},
            ["DISPATCH: ok=false path=gate reason=instruction-empty "],
        ),
        (
            "workflow_run",
            GATE_PAYLOAD,
            {
                "comments": [HUMAN],
                "lastProcessed": {"instructionId": 99, "headSha": HEAD},
            },
            ["WORKER: action=skip reason=no-new-instruction-and-head-unchanged pr=#7 "],
        ),
        (
            "workflow_run",
            GATE_PAYLOAD,
            {"comments": [HUMAN], "worker": {"done": True}},
            ["SYNC: action=escalate head_changed=false trace=ka-7-r1"],
        ),
    ],
    ids=[
        "human-agent-before-gate",
        "gate-success-with-prior-activation",
        "cap-reached",
        "no-activation-found-on-gate",
        "instruction-empty",
        "worker-skip",
        "branch-sync-escalate",
    ],
)
def test_test_matrix_through_the_explain_api(
    owner: Any, event: str, payload: Any, state: dict[str, Any], expected: list[str]
) -> None:
    doc = explain_doc(**state)
    doc["event"] = event
    if payload is not None:
        doc["payload"] = payload
    api = APIClient()
    api.force_authenticate(owner)
    body = api.post("/api/prkeepalive/explain", doc, format="json").json()
    text = "\n".join(body["lines"])
    for fragment in expected:
        assert fragment in text
    if "instruction-empty" in expected[0]:
        assert body["decision"]["failsJob"] is True
