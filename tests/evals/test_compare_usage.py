"""The compare page's "Cost and latency" block and its JSON."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest

from tests.evals.usage_support import spans_for, stored_run

pytestmark = pytest.mark.django_db

CASES = [f"s{i:02d}" for i in range(12)]
URL = "/evals/compare?base=base&candidate=cand"


def block(html: str) -> str:
    found = re.search(
        r'<section aria-labelledby="usage-heading".*?</section>', html, re.S
    )
    assert found is not None
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(0))))


@pytest.fixture
def two_runs() -> None:
    stored_run("pack", "base", CASES)
    stored_run("pack", "cand", CASES, minutes=5)


@pytest.mark.usefixtures("two_runs")
def test_the_block_shows_cost_latency_and_tokens_with_changes(
    owner_client: Any,
) -> None:
    spans_for("base", {c: ("0.01", 100.0 + i) for i, c in enumerate(CASES)})
    spans_for("cand", {c: ("0.02", 200.0 + i) for i, c in enumerate(CASES)})
    text = block(owner_client.get(URL).content.decode())
    assert "Total cost $0.1200 $0.2400 +$0.1200 (+100%)" in text
    assert (
        "Cost per case (mean) $0.0100 $0.0200 +$0.0100 (+100%) "
        "[+$0.0100, +$0.0100] regression 12 scenarios in both runs"
    ) in text
    assert (
        "Model time per case, p95 110 ms 210 ms +100 ms (+91%) [+100 ms, +100 ms] "
        "interval: 12 scenarios in both runs, resampled"
    ) in text
    assert "Input tokens 1,200 1,200 0 Output tokens" in text


@pytest.mark.usefixtures("two_runs")
def test_unpriced_calls_make_the_cost_unknown_and_say_how_many(
    owner_client: Any,
) -> None:
    spans_for("base", {c: ("0.01", 100.0) for c in CASES})
    spans_for("cand", {c: (None if c < "s03" else "0.01", 100.0) for c in CASES})
    text = block(owner_client.get(URL).content.decode())
    assert (
        "Total cost unknown unknown unknown cost unknown: candidate: 3 calls unpriced"
        in (text)
    )
    assert "Model time per case (mean) 100 ms 100 ms" in text


@pytest.mark.usefixtures("two_runs")
def test_runs_without_model_calls_say_so(owner_client: Any) -> None:
    text = block(owner_client.get(URL).content.decode())
    assert "No model calls recorded for either run" in text


@pytest.mark.usefixtures("two_runs")
def test_the_json_download_carries_cost_and_latency(owner_client: Any) -> None:
    spans_for("base", {c: ("0.01", 100.0) for c in CASES})
    spans_for("cand", {c: ("0.01", 100.0) for c in CASES})
    document = json.loads(owner_client.get(URL + "&format=json").content)
    (usage,) = document["costAndLatency"]
    assert usage["baseRunId"] == "base"
    assert usage["costUsd"]["change"] == pytest.approx(0.0)
    assert usage["latencyPerCaseMs"]["verdict"] == "no change"
    assert usage["latencyP95Ms"]["interval"] == [0.0, 0.0]
