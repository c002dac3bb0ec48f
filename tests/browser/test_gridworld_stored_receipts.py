"""The episode page of a stored receipt that changed or broke: a plain notice
in the Receipt tile, no map drawn from it, no script error, at 1280 and 390 px."""

from __future__ import annotations

import zlib
from typing import Any

import pytest

from evals.services.runs.lifecycle import run_execute
from gridworld.models import Episode
from gridworld.services.batches import batch_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_altered_and_damaged_receipts_show_a_notice_not_an_error(
    page: Any, live_server: Any, owner: Any, screenshot: Any, log_in: Any
) -> None:
    batch = batch_create(
        config={"map": "hazard", "episodes": 2, "seed": 3, "proposer": "greedy"},
        schedule=False,
    )
    run_execute(run=batch.run)
    first, second = batch.episode_rows.order_by("index")
    text = zlib.decompress(bytes(first.receipt_gz)).decode()
    altered = text.replace('"e_max":6000000', '"e_max":-1').encode()
    Episode.objects.filter(pk=first.pk).update(receipt_gz=zlib.compress(altered))
    Episode.objects.filter(pk=second.pk).update(receipt_gz=b"not a receipt")
    log_in("alice", "pw-alice")

    page.goto(f"{live_server.url}/gridworld/batches/{batch.pk}/episodes/0/")
    notice = page.inner_text("#receipt-notice")
    assert "This receipt has changed since the episode was stored." in notice
    assert page.locator("#gw-grid").count() == 0
    page.click("text=Verify by replay")
    assert page.inner_text(".gw-verdict") == (
        "Cannot be replayed: the receipt's config cannot be replayed: "
        "config.kernel.e_max: e_max must be at least 0."
    )
    screenshot("gridworld-episode-altered-receipt")

    page.goto(f"{live_server.url}/gridworld/batches/{batch.pk}/episodes/1/")
    notice = page.inner_text("#receipt-notice")
    assert "This episode's stored receipt is damaged" in notice
    assert "the bytes do not decompress" in notice
    assert page.locator("text=Verify by replay").count() == 0
    screenshot("gridworld-episode-damaged-receipt")
    assert page.js_errors == []
