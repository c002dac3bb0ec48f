"""The compare page's "Cost and latency" block and its JSON; cost and
model time per run on the trends page."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

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
        "Total cost $0.1200 unknown unknown cost unknown: candidate: 3 calls unpriced"
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


# --- trends: cost and model time per run ------------------------------------------


def test_trends_show_cost_and_p95_per_run_beside_pass_rate(owner_client: Any) -> None:
    stored_run("pack", "r1", CASES)
    stored_run("pack", "r2", CASES, minutes=5)
    stored_run("pack", "r3", CASES, minutes=10)
    spans_for("r1", {c: ("0.01", 100.0) for c in CASES})
    spans_for("r2", {c: (None if c == "s00" else "0.01", 300.0) for c in CASES})
    response = owner_client.get("/evals/trends?benchmark=pack")
    html = response.content.decode()
    assert '<th scope="col">Cost</th><th scope="col">Model time p95</th>' in html
    rows = re.findall(r"<tr>\s*<td><a [^>]*><code>(r\d)</code>.*?</tr>", html, re.S)
    assert rows == ["r3", "r2", "r1"]
    cells = {
        run: re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", row)))
        for run, row in re.findall(r"<code>(r\d)</code>(.*?)</tr>", html, re.S)
    }
    assert "$0.1200 100 ms" in cells["r1"]
    assert "unknown (1 unpriced) 300 ms" in cells["r2"]
    assert "no model calls no model calls" in cells["r3"]
    figure = json.loads(
        unescape(
            re.search(
                r'<script id="trend-usage-data" type="application/json">(.*?)</script>',
                html,
                re.S,
            ).group(1)
        )
    )
    cost, p95 = figure["data"]
    assert cost["y"] == [pytest.approx(0.12), None]
    assert p95["y"] == [100.0, 300.0]
    assert p95["yaxis"] == "y2"
    document = json.loads(
        owner_client.get("/evals/trends?benchmark=pack&format=json").content
    )
    assert document["costAndLatency"]["r2"]["unpricedCalls"] == 1
    assert document["costAndLatency"]["r3"]["calls"] == 0


def test_trends_without_model_calls_have_no_cost_columns(owner_client: Any) -> None:
    stored_run("pack", "r1", CASES)
    html = owner_client.get("/evals/trends?benchmark=pack").content.decode()
    assert "Model time p95" not in html
    assert "trend-usage" not in html


def test_trends_cost_is_one_query_for_many_runs(owner_client: Any) -> None:
    def count(benchmark_id: str, runs: int) -> int:
        for index in range(runs):
            run_id = f"{benchmark_id}-{index:03d}"
            stored_run(benchmark_id, run_id, CASES[:2], minutes=index)
            spans_for(run_id, {c: ("0.01", 100.0) for c in CASES[:2]})
        url = f"/evals/trends?benchmark={benchmark_id}"
        owner_client.get(url)
        with CaptureQueriesContext(connection) as queries:
            owner_client.get(url)
        return len(queries)

    assert count("few", 3) == count("lots", 60)
