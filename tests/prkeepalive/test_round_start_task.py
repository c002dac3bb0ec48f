"""The round-start task is one service call: a round whose start fails is
marked failed by the service, never retried."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from prkeepalive.models import PullRequest, Repository, Round
from prkeepalive.services import rounds as rounds_service
from prkeepalive.tasks.rounds import start_round


@pytest.mark.django_db
def test_a_round_whose_start_fails_is_marked_failed_and_logged(
    repo: Repository, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    pull = PullRequest.objects.create(repository=repo, number=7)
    rnd = Round.objects.create(
        repository=repo,
        pull=pull,
        activation_comment_id=99,
        number=1,
        trace="ka-7-r1",
    )

    def broken(*, round_pk: int) -> str:
        raise RuntimeError("GitHub is down")

    monkeypatch.setattr(rounds_service, "round_start", broken)
    with caplog.at_level(logging.ERROR, logger="prkeepalive.tasks.rounds"):
        assert start_round(rnd.pk) == "failed"
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.FAILED
    assert rnd.error == "the instruction could not be posted"
    assert [r.getMessage() for r in caplog.records] == [
        f"[PRKeepalive] round_start_failed pk={rnd.pk}"
    ]
    assert caplog.records[0].name == "prkeepalive.tasks.rounds"


@pytest.mark.django_db
def test_a_round_that_started_keeps_its_status(
    repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    pull = PullRequest.objects.create(repository=repo, number=7)
    rnd = Round.objects.create(
        repository=repo, pull=pull, activation_comment_id=99, number=1, trace="t"
    )
    monkeypatch.setattr(
        rounds_service, "round_start", lambda *, round_pk: Round.Status.RUNNING
    )
    assert start_round(rnd.pk) == Round.Status.RUNNING
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.LOCKED
