"""The dispatch lock under concurrency, the GitHub client's retry and
secrecy rules, and the reconciler — all against the fake GitHub server."""

from __future__ import annotations

import logging
import threading
from typing import Any

import httpx
import pytest
from conftest import ISSUE_BODY
from django.db import connection

from prkeepalive.core.types import Event
from prkeepalive.github import GitHubClient, GitHubError
from prkeepalive.models import Decision, Round
from prkeepalive.services.dispatch import decide_and_record
from prkeepalive.services.reconcile import reconcile_all


def comment_event(github: Any, cid: int) -> Event:
    from prkeepalive.core.wire import parse_event

    c = github.state.comments[cid]
    return parse_event(
        "issue_comment",
        {
            "action": "created",
            "issue": {"number": 41, "pull_request": {}},
            "comment": github.state.comment_json(c),
        },
    )


@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_on_one_activation_dispatch_once(
    github: Any, repo: Any
) -> None:
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    github.state.add_run("Gate", pull["head"]["sha"], pulls=(41,))
    cid = github.state.add_comment(41, "@codex go")
    event = comment_event(github, cid)
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            barrier.wait()
            decide_and_record(repo, event)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    reasons = sorted(Decision.objects.values_list("reason", flat=True))
    assert reasons == ["lock-held", "lock-held", "lock-held", "ok"]
    assert Round.objects.exclude(status=Round.Status.LOCK_HELD).count() == 1
    assert len(github.state.dispatches) == 1
    assert len(github.state.instruction_comments(41)) == 1


def test_reaction_answers_201_then_200(github: Any) -> None:
    github.state.add_pull(41)
    cid = github.state.add_comment(41, "@codex go")
    with GitHubClient(
        base_url=github.url, token="bot-token", repository="acme/widgets"
    ) as client:
        assert client.add_reaction(cid, "rocket") == 201
        assert client.add_reaction(cid, "rocket") == 200


def test_rate_limits_wait_and_retry(github: Any) -> None:
    github.state.add_pull(41)
    waits: list[float] = []
    github.state.fail_next = [
        (429, {"Retry-After": "0"}),
        (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1"}),
        (502, {}),
    ]
    with GitHubClient(
        base_url=github.url,
        token="bot-token",
        repository="acme/widgets",
        retries=3,
        sleep=waits.append,
    ) as client:
        assert client.get_pull(41).number == 41
    assert waits[0] == 0.0 and waits[1] == 0.0 and waits[2] == 2.0
    assert len(github.state.requests) == 4


def test_retry_budget_is_bounded_and_4xx_is_not_retried(github: Any) -> None:
    github.state.fail_next = [(500, {})] * 5
    with GitHubClient(
        base_url=github.url,
        token="bot-token",
        repository="acme/widgets",
        retries=2,
        sleep=lambda s: None,
    ) as client:
        with pytest.raises(GitHubError) as info:
            client.get_pull(41)
        assert info.value.status == 500 and len(github.state.requests) == 3
        github.state.fail_next = []
        with pytest.raises(GitHubError) as missing:
            client.get_pull(404)
        assert missing.value.status == 404 and len(github.state.requests) == 4


def test_a_long_rate_limit_wait_fails_instead_of_blocking(github: Any) -> None:
    github.state.fail_next = [(429, {"Retry-After": "3600"})]
    with (
        GitHubClient(
            base_url=github.url,
            token="bot-token",
            repository="acme/widgets",
            max_wait_s=10,
            sleep=lambda s: None,
        ) as client,
        pytest.raises(GitHubError, match="429"),
    ):
        client.get_pull(41)


def test_tokens_are_never_logged_or_shown(
    github: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    github.state.fail_next = [(503, {}), (401, {})]
    client = GitHubClient(
        base_url=github.url,
        token="bot-token",
        repository="acme/widgets",
        sleep=lambda s: None,
    )
    with pytest.raises(GitHubError) as info:
        client.get_pull(41)
    client.close()
    assert "bot-token" not in caplog.text
    assert "bot-token" not in repr(client) and "bot-token" not in str(info.value)


def test_api_base_url_is_configurable_for_enterprise() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(
            200, json={"number": 3, "head": {"sha": "abc"}, "base": {}}
        )

    client = GitHubClient(
        base_url="https://ghe.example.com/api/v3/",
        token="t",
        repository="acme/widgets",
        transport=httpx.MockTransport(handler),
    )
    assert client.get_pull(3).head_sha == "abc"
    assert seen == ["https://ghe.example.com/api/v3/repos/acme/widgets/pulls/3"]


@pytest.mark.django_db
def test_reconciler_decides_what_a_lost_webhook_would_have(
    github: Any, repo: Any, django_capture_on_commit_callbacks: Any
) -> None:
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    github.state.add_pull(42, labels=(), body=ISSUE_BODY)
    github.state.add_run("Gate", pull["head"]["sha"], pulls=(41,))
    github.state.add_comment(41, "@codex go")
    with django_capture_on_commit_callbacks(execute=True):
        assert reconcile_all() == 1
    d = Decision.objects.get()
    assert d.ok and d.source == "reconciler" and d.lane == "gate"
    assert len(github.state.dispatches) == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert reconcile_all() == 1  # now lock-held: recorded once
        assert reconcile_all() == 0  # unchanged: not recorded again
    assert list(Decision.objects.order_by("pk").values_list("reason", flat=True)) == [
        "ok",
        "lock-held",
    ]
    assert len(github.state.dispatches) == 1


@pytest.mark.django_db
def test_reconciler_finishes_a_round_whose_worker_webhook_was_lost(
    github: Any, repo: Any, django_capture_on_commit_callbacks: Any
) -> None:
    pull = github.state.add_pull(41, body=ISSUE_BODY)
    github.state.add_run("Gate", pull["head"]["sha"], pulls=(41,))
    github.state.add_comment(41, "@codex go")
    github.state.update_moves_head.add(41)
    with django_capture_on_commit_callbacks(execute=True):
        reconcile_all()
    rnd = Round.objects.get()
    assert rnd.status == Round.Status.RUNNING
    worker = github.state.add_run("Agents worker", "f" * 40)
    worker["display_title"] = f"keepalive {rnd.trace}"
    with django_capture_on_commit_callbacks(execute=True):
        reconcile_all()
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.DONE
    assert (
        rnd.sync_line == "SYNC: action=update-branch head_changed=true trace=ka-41-r1"
    )
