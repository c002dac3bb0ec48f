"""Failures are shown where people look: a delivery that could not be
processed (GitHub unreachable) on its PR's page, the keepalive index and the
overview; deliveries of repositories not registered or paused are ignored
without asking GitHub; no webhook secret is answered as such; the demo's
fictional repository is never asked about; and a GitHub call that got no
answer says what failed."""

from __future__ import annotations

import logging
import socket
from typing import Any

import httpx
import pytest
from conftest import ISSUE_BODY, comment_payload

from prkeepalive.github import GitHubClient, GitHubError
from prkeepalive.models import Decision, Delivery, PullRequest, Repository
from prkeepalive.services.dispatch import delivery_process, delivery_will_retry
from prkeepalive.services.reconcile import reconcile_all
from tests.builders import delivery_make

pytestmark = pytest.mark.django_db


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_a_failed_delivery_shows_on_the_pr_page_index_and_overview(
    settings: Any,
    github: Any,
    repo: Any,
    post_webhook: Any,
    django_capture_on_commit_callbacks: Any,
    client: Any,
    owner: Any,
) -> None:
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    first = github.state.add_comment(41, "@codex please continue")
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("issue_comment", comment_payload(github, 41, first))
    assert Decision.objects.get().reason == "gate-pending"
    # GitHub becomes unreachable; the next delivery cannot be processed.
    github.state.add_run("Gate", pull["head"]["sha"], pulls=(41,))
    second = github.state.add_comment(41, "@codex again")
    payload = comment_payload(github, 41, second)
    settings.PRKEEPALIVE_GITHUB_API_URL = closed_port_url()
    settings.PRKEEPALIVE_GITHUB_RETRIES = 0
    with django_capture_on_commit_callbacks(execute=True):
        assert post_webhook("issue_comment", payload).status_code == 202
    failed = Delivery.objects.get(status=Delivery.Status.FAILED)
    assert failed.pull_number == 41 and "connection refused" in failed.error
    assert Decision.objects.count() == 1  # nothing was decided for it

    client.force_login(owner)
    page = client.get("/prkeepalive/acme/widgets/pull/41/").content.decode()
    why = page[page.index("Why didn") : page.index("Timeline")]
    assert "could not be processed after 1 attempt" in why
    assert "connection refused" in why
    assert "The decision before it" in why and "reason=gate-pending" in why
    assert "Deliveries that failed" in page
    index = client.get("/prkeepalive/").content.decode()
    assert "1 delivery could not be processed" in index
    assert 'href="/prkeepalive/acme/widgets/pull/41/"' in index
    overview = client.get("/").content.decode()
    assert "deliveries not processed: 0 retrying · 1 failed in the last 24 h" in (
        overview
    )


def test_a_retrying_delivery_says_when_it_is_tried_again(
    github: Any, repo: Any, client: Any, owner: Any
) -> None:
    delivery = delivery_make(
        action="created",
        repository=repo,
        pull_number=41,
        payload={"action": "created"},
        status=Delivery.Status.FAILED,
        error="GitHubError: GET /repos/acme/widgets/pulls/41: timed out",
        attempts=1,
    )
    PullRequest.objects.create(repository=repo, number=41)
    delivery_will_retry(delivery_pk=delivery.pk, countdown_s=10)
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.RETRYING and delivery.retry_at
    client.force_login(owner)
    page = client.get("/prkeepalive/acme/widgets/pull/41/").content.decode()
    assert "could not be processed yet (1 attempt); it is tried again at" in page
    assert "deliveries not processed: 1 retrying" in client.get("/").content.decode()


def test_the_first_delivery_of_a_pr_failing_still_gives_it_a_page(
    settings: Any,
    github: Any,
    repo: Any,
    post_webhook: Any,
    django_capture_on_commit_callbacks: Any,
    client: Any,
    owner: Any,
) -> None:
    github.state.add_pull(41, body=ISSUE_BODY)
    cid = github.state.add_comment(41, "@codex go")
    payload = comment_payload(github, 41, cid)
    settings.PRKEEPALIVE_GITHUB_API_URL = closed_port_url()
    settings.PRKEEPALIVE_GITHUB_RETRIES = 0
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook("issue_comment", payload)
    client.force_login(owner)
    response = client.get("/prkeepalive/acme/widgets/pull/41/")
    assert response.status_code == 200
    assert "could not be processed after 1 attempt" in response.content.decode()


def test_signed_delivery_for_an_unregistered_repository_is_ignored(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    payload = comment_payload(github, 41, github.state.add_comment(41, "@codex go"))
    payload["repository"] = {"full_name": "someone/else"}
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = post_webhook("issue_comment", payload)
    assert response.status_code == 202
    assert response.json()["reason"] == (
        "the repository someone/else is not registered for keepalive"
    )
    assert Delivery.objects.get().status == Delivery.Status.IGNORED
    assert callbacks == [] and github.state.requests == []


def test_delivery_of_a_paused_or_removed_repository_is_ignored_not_retried(
    github: Any, repo: Any, post_webhook: Any, django_capture_on_commit_callbacks: Any
) -> None:
    repo.is_active = False
    repo.save()
    payload = comment_payload(github, 41, github.state.add_comment(41, "@codex go"))
    response = post_webhook("issue_comment", payload)
    assert (
        response.json()["reason"]
        == "the repository acme/widgets is paused (not active)"
    )
    # A delivery queued before its repository was removed: ignored, no GitHub.
    queued = delivery_make(
        "queued-1",
        payload=payload,
        status=Delivery.Status.QUEUED,
    )
    assert delivery_process(delivery_pk=queued.pk) == Delivery.Status.IGNORED
    queued.refresh_from_db()
    assert queued.reason == "the repository is no longer registered for keepalive"
    assert github.state.requests == []


def test_no_webhook_secret_configured_is_answered_as_such(
    settings: Any, github: Any, repo: Any, post_webhook: Any
) -> None:
    settings.PRKEEPALIVE_WEBHOOK_SECRET = ""
    response = post_webhook("ping", {"zen": "hi"}, secret="anything")
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == "webhook_secret_unset"
    assert "set PRKEEPALIVE_WEBHOOK_SECRET" in error["message"]
    assert Delivery.objects.count() == 0


def test_the_demo_repository_is_never_asked_about(
    settings: Any, github: Any, owner: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from prkeepalive.demo import load_demo

    load_demo(owner=owner)
    caplog.set_level(logging.WARNING)
    reconcile_all()
    assert github.state.requests == []
    assert "reconcile_failed" not in caplog.text
    assert not Repository.objects.get(full_name="demo-org/widgets").is_active


def failing(exc: Exception) -> GitHubClient:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc

    return GitHubClient(
        base_url="https://api.github.example",
        token="t",
        repository="acme/widgets",
        retries=0,
        transport=httpx.MockTransport(handler),
    )


@pytest.mark.parametrize(
    ("exc", "cause"),
    [
        (
            httpx.ConnectError("[Errno -2] Name or service not known"),
            "DNS lookup failed",
        ),
        (httpx.ConnectError("[Errno 111] Connection refused"), "connection refused"),
        (httpx.ReadTimeout("timed out"), "timed out (ReadTimeout)"),
    ],
)
def test_a_call_without_an_answer_says_what_failed(exc: Exception, cause: str) -> None:
    with pytest.raises(GitHubError) as info, failing(exc) as client:
        client.get_pull(1)
    assert info.value.status == 0 and info.value.cause == cause
    assert (
        str(info.value)
        == f"GET /repos/acme/widgets/pulls/1: {cause} (api.github.example)"
    )


def test_reconcile_failed_log_says_what_failed(
    settings: Any, repo: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.PRKEEPALIVE_GITHUB_API_URL = closed_port_url()
    settings.PRKEEPALIVE_GITHUB_RETRIES = 0
    caplog.set_level(logging.WARNING)
    reconcile_all()
    assert (
        "[PRKeepalive] reconcile_failed repository=acme/widgets status=0 "
        "error=connection refused"
    ) in caplog.text
