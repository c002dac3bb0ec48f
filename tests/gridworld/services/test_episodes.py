"""Stored receipts and their offline verification."""

from __future__ import annotations

import logging

import pytest

from evals.services.runs.lifecycle import run_execute
from gridworld.services.batches import batch_create
from gridworld.services.episodes import episode_receipt, receipt_verify

pytestmark = pytest.mark.django_db

CONFIG = {
    "map": "hazard",
    "episodes": 6,
    "proposer": "planner",
    "seed": 42,
    "lane_size": 3,
}


def test_receipt_verify_logs_the_verdict(caplog) -> None:
    caplog.set_level(logging.INFO, logger="gridworld.services.episodes")
    batch = batch_create(config={**CONFIG, "episodes": 1}, schedule=False)
    run_execute(run=batch.run)
    receipt = episode_receipt(batch.episode_rows.get())
    assert receipt_verify(receipt).ok
    receipt["steps"][2]["budget"] -= 5
    verification = receipt_verify(receipt)
    assert not verification.ok
    lines = [
        r.getMessage()
        for r in caplog.records
        if r.name == "gridworld.services.episodes"
    ]
    assert lines[0] == (
        f"[Gridworld] receipt_verified run_id={receipt['run_id']} verified=true "
        f"steps={len(receipt['steps'])} source=upload"
    )
    assert lines[1] == (
        f"[Gridworld] receipt_verified run_id={receipt['run_id']} verified=false "
        "steps=2 source=upload step=2 field=budget"
    )
