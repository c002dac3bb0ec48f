"""Fixtures of the PR keepalive shell tests: a running fake GitHub, a
registered repository, and a signed webhook poster."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_github import FakeGitHub  # noqa: E402

from prkeepalive.models import Repository  # noqa: E402
from prkeepalive.services.intake import sign  # noqa: E402
from tests.builders import ISSUE_BODY  # noqa: F401 (the tests import it from here)

SECRET = "webhook-secret"


@pytest.fixture(autouse=True)
def _recorded_decisions_replay_through_explain(
    request: pytest.FixtureRequest,
) -> Iterator[None]:
    """After every database test here: each decision the service recorded,
    posted to the dry run with the facts it recorded, prints the identical
    line (explain and the service run the same decision code). Rows a test
    wrote by hand, with no inputs at all, are not recorded decisions."""
    if request.node.get_closest_marker("django_db") is None:
        yield
        return
    request.getfixturevalue("db")
    yield
    from prkeepalive.core.explain import explain
    from prkeepalive.core.inputs import recorded_request
    from prkeepalive.models import Decision

    for decision in Decision.objects.exclude(inputs={}).order_by("pk"):
        document = recorded_request(decision.inputs)
        assert document is not None, decision.line
        replayed = explain(document).lines
        assert replayed[:1] == (decision.line,), decision.detail


WEBHOOK = "/api/prkeepalive/github/webhook"


@pytest.fixture
def github(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        settings.PRKEEPALIVE_GITHUB_API_URL = fake.url
        settings.PRKEEPALIVE_WEBHOOK_SECRET = SECRET
        settings.PRKEEPALIVE_HEAD_POLL_ATTEMPTS = 1
        settings.PRKEEPALIVE_HEAD_POLL_INTERVAL_S = 0
        settings.PRKEEPALIVE_GITHUB_MAX_WAIT_S = 1
        monkeypatch.setenv("PRKEEPALIVE_BOT_TOKEN", "bot-token")
        monkeypatch.setenv("PRKEEPALIVE_HUMAN_TOKEN", "human-token")
        yield fake


@pytest.fixture
def repo(db: Any) -> Repository:
    return Repository.objects.create(
        full_name="acme/widgets",
        agent_aliases=["codex"],
        automation_logins=["stranske-automation-bot"],
    )


Poster = Callable[..., Any]


@pytest.fixture
def post_webhook(client: Client) -> Poster:
    def post(
        event: str,
        payload: dict[str, Any],
        *,
        guid: str | None = None,
        secret: str = SECRET,
        signature: str | None = None,
    ) -> Any:
        body = json.dumps(payload).encode()
        headers = {
            "HTTP_X_GITHUB_EVENT": event,
            "HTTP_X_GITHUB_DELIVERY": guid or str(uuid.uuid4()),
            "HTTP_X_HUB_SIGNATURE_256": signature
            if signature is not None
            else sign(secret, body),
        }
        return client.post(
            WEBHOOK, data=body, content_type="application/json", **headers
        )

    return post


def comment_payload(
    fake: FakeGitHub, number: int, comment_id: int, *, action: str = "created"
) -> dict[str, Any]:
    c = fake.state.comments[comment_id]
    return {
        "action": action,
        "repository": {"full_name": fake.state.repo},
        "issue": {"number": number, "pull_request": {"url": "x"}},
        "comment": fake.state.comment_json(c),
    }


def run_payload(fake: FakeGitHub, run: dict[str, Any]) -> dict[str, Any]:
    return {
        "action": "completed",
        "repository": {"full_name": fake.state.repo},
        "workflow_run": run,
    }
