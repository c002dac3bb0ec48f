"""The tasks are one service call each: a round whose start fails is
marked failed by the service, never retried; a delivery whose processing
fails is marked retrying with its backoff, then stays failed."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from prkeepalive.models import Delivery, PullRequest, Repository, Round
from prkeepalive.services import dispatch as dispatch_service
from prkeepalive.services import rounds as rounds_service
from prkeepalive.tasks.rounds import start_round
from tests.builders import delivery_make


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


@pytest.mark.django_db
def test_a_failed_delivery_is_retried_with_backoff_then_given_up(
    repo: Repository, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    delivery = delivery_make(repository=repo)

    def broken(*, delivery_pk: int) -> str:
        Delivery.objects.filter(pk=delivery_pk).update(status=Delivery.Status.FAILED)
        raise RuntimeError("GitHub is down")

    monkeypatch.setattr(dispatch_service, "delivery_process", broken)
    with caplog.at_level(logging.WARNING, logger="prkeepalive.tasks.deliveries"):
        with pytest.raises(dispatch_service.RetryDelivery) as retry:
            dispatch_service.delivery_attempt(
                delivery_pk=delivery.pk, retries=2, may_retry=True
            )
        assert retry.value.countdown_s == 20
        assert isinstance(retry.value.__cause__, RuntimeError)
        delivery.refresh_from_db()
        assert delivery.status == Delivery.Status.RETRYING and delivery.retry_at
        given_up = dispatch_service.delivery_attempt(
            delivery_pk=delivery.pk, retries=3, may_retry=True
        )
        assert given_up == "failed"
        assert (
            dispatch_service.delivery_attempt(
                delivery_pk=delivery.pk, retries=0, may_retry=False
            )
            == "failed"
        )
    assert [r.getMessage() for r in caplog.records] == [
        f"[PRKeepalive] delivery_retry pk={delivery.pk} error=RuntimeError",
        f"[PRKeepalive] delivery_gave_up pk={delivery.pk}",
        f"[PRKeepalive] delivery_gave_up pk={delivery.pk}",
    ]
    assert {r.name for r in caplog.records} == {"prkeepalive.tasks.deliveries"}
