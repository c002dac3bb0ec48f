"""The traces pages and the usage on the run, scenario, thought and agent
pages: login, figures in words (unknown is never $0), filters, links, and a
run page of 10,000 spans in as many queries as one of ten."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from evals.models import Run
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_execute
from tests.builders import thought_actionable
from tests.traces.pages_support import TRACE, agent_trace, harness_run_spans, span
from traces.models import Span
from traces.services.spans import store_spans

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"


@pytest.fixture(autouse=True)
def isolated(settings: Any, tmp_path: Path) -> None:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    shutil.copytree(SHIPPED, tmp_path / "suites")
    settings.EVALS_SUITES_DIR = tmp_path / "suites"


@pytest.fixture
def run() -> Run:
    """A finished smoke run whose spans are only those a test stores."""
    made = eval_run_create(
        suite_path=SHIPPED / "smoke.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        schedule=False,
    )
    finished = run_execute(run=made)
    Span.objects.filter(run_ref=finished.run_id).delete()
    return finished


def case_ids(run: Run) -> list[str]:
    return sorted(run.case_results.values_list("case_id", flat=True))


def text(html: str) -> str:
    """The page's words, tags dropped and spaces folded."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_traces_pages_need_a_login(client: Any) -> None:
    for url in ("/traces/", f"/traces/{TRACE}/"):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/accounts/login/?next="), url


def test_span_list_shows_figures_in_words_and_links(
    owner_client: Any, agent: Any
) -> None:
    agent_trace(agent.pk, thought=7)
    response = owner_client.get("/traces/")
    assert response.status_code == 200
    words = text(response.content.decode())
    assert "chat gpt-4o-mini" in words
    assert "1,200 / 80" in words
    assert "$0.000228" in words
    # The unpriced call: cost unknown and tokens not reported, never 0.
    assert "not reported / not reported unknown" in words
    table = text(response.content.decode().split('id="span-table"')[1])
    assert "$0 " not in table
    html = response.content.decode()
    assert f'href="/traces/{TRACE}/#span-0000000000000002"' in html
    assert 'href="/stream/alpha/thoughts/7/"' in html


def test_span_list_filters_by_model_and_keeps_them_on_the_next_page(
    owner_client: Any, agent: Any
) -> None:
    agent_trace(agent.pk)
    store_spans(
        [
            span(f"{i:016x}", trace_id=f"{i:032x}", request_model="mystery-model-9")
            for i in range(100, 160)
        ]
    )
    html = owner_client.get("/traces/?model=mystery-model-9").content.decode()
    assert html.count('<tr class="span-error">') == 1
    assert "chat gpt-4o-mini" not in html
    older = re.search(
        r'href="(\?model=mystery-model-9&amp;after=[^"]+)" rel="next"', html
    )
    assert older is not None
    second = owner_client.get("/traces/" + older[1].replace("&amp;", "&"))
    assert second.status_code == 200
    rows = second.content.decode().count("<tr")
    # 61 matching spans: 50 on the first page, 11 on the second (+ the head row).
    assert rows == 12


def test_span_list_refuses_a_bad_time_range_with_a_message(owner_client: Any) -> None:
    response = owner_client.get("/traces/?since=yesterday")
    assert response.status_code == 400
    assert "Enter a valid date/time." in response.content.decode()
    response = owner_client.get(
        "/traces/?since=2026-11-02T00:00&until=2026-11-01T00:00"
    )
    assert response.status_code == 400
    assert "must be later than From" in response.content.decode()


def test_span_list_ignores_a_cursor_of_another_shape(owner_client: Any) -> None:
    store_spans([span("1" * 16)])
    response = owner_client.get("/traces/?after=not-a-cursor")
    assert response.status_code == 200
    assert "chat" in response.content.decode()


def test_trace_page_draws_the_waterfall_with_tool_calls_and_texts(
    owner_client: Any, agent: Any
) -> None:
    thought = thought_actionable(agent)
    agent_trace(agent.pk, thought=thought.pk)
    response = owner_client.get(f"/traces/{TRACE}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('<li class="wf-row') == 4
    # The agent step first, its three children indented under it.
    assert html.count('style="padding-left:1.0em"') == 3
    # The tool call: 500..650 ms of a 900 ms trace.
    assert "margin-left:55.556%;width:16.667%" in html
    assert "&quot;depth&quot;: 3" in html
    assert "found a key" in html
    assert "Where is the key?" in html and "Under the mat." in html
    words = text(html)
    assert "Time to first token 120 ms" in words
    assert "Cost unknown" in words
    assert "rate limited" in words
    assert f'href="/stream/alpha/thoughts/{thought.pk}/"' in html


def test_an_unknown_or_hidden_trace_is_404(
    owner_client: Any, stranger_client: Any, agent: Any
) -> None:
    agent_trace(agent.pk)
    assert owner_client.get("/traces/" + "f" * 32 + "/").status_code == 404
    assert owner_client.get("/traces/not-hex/").status_code == 404
    assert stranger_client.get(f"/traces/{TRACE}/").status_code == 404


def test_run_page_shows_totals_percentiles_and_a_trace_per_scenario(
    owner_client: Any, run: Run
) -> None:
    cases = case_ids(run)
    harness_run_spans(run.run_id, cases)
    html = owner_client.get(f"/evals/runs/{run.run_id}/").content.decode()
    words = text(html)
    assert f"Calls {len(cases)}" in words
    assert f"in {100 * len(cases)} out {10 * len(cases)}" in words
    assert "p50 102 ms · p95 104 ms · p99 104 ms" in words
    assert f'href="/traces/?run={run.run_id}"' in html
    for i, case_id in enumerate(cases):
        assert f'href="/traces/{i + 1:032x}/"' in html, case_id


def test_run_page_says_unknown_cost_with_the_unpriced_count(
    owner_client: Any, run: Run
) -> None:
    cases = case_ids(run)
    harness_run_spans(run.run_id, cases[:2])
    store_spans(
        [
            span(
                "e" * 16,
                trace_id="e" * 32,
                run_ref=run.run_id,
                case_ref=cases[2],
                request_model="mystery-model-9",
            )
        ]
    )
    words = text(owner_client.get(f"/evals/runs/{run.run_id}/").content.decode())
    assert "$0.0000400 + unknown (1 unpriced call)" in words
    assert "their cost is unknown, not $0" in words


def test_run_page_without_spans_says_so(owner_client: Any, run: Run) -> None:
    html = owner_client.get(f"/evals/runs/{run.run_id}/").content.decode()
    assert "No model call of this run was recorded." in html


def test_a_run_page_of_10000_spans_costs_the_queries_of_one_of_ten(
    owner_client: Any, run: Run
) -> None:
    cases = case_ids(run)
    url = f"/evals/runs/{run.run_id}/"
    harness_run_spans(run.run_id, cases)
    owner_client.get(url)
    with CaptureQueriesContext(connection) as few:
        owner_client.get(url)
    store_spans(
        [
            span(
                f"{i:016x}",
                trace_id=f"{i % 97:032x}",
                run_ref=run.run_id,
                case_ref=cases[i % len(cases)],
                request_model="gpt-4o-mini",
                client_cost_usd=None,
                latency_ms=float(i % 500),
            )
            for i in range(1000, 1000 + 10_000 - len(cases))
        ]
    )
    assert Span.objects.filter(run_ref=run.run_id).count() == 10_000
    owner_client.get(url)
    started = time.perf_counter()
    with CaptureQueriesContext(connection) as many:
        response = owner_client.get(url)
    elapsed = time.perf_counter() - started
    assert response.status_code == 200
    assert len(many.captured_queries) == len(few.captured_queries)
    print(
        f"run page, 10,000 spans, warm: {elapsed * 1000:.0f} ms, "
        f"{len(many.captured_queries)} queries"
    )


def test_scenario_and_thought_pages_link_their_trace(
    owner_client: Any, run: Run, agent: Any
) -> None:
    case = case_ids(run)[0]
    harness_run_spans(run.run_id, [case])
    html = owner_client.get(f"/evals/runs/{run.run_id}/scenarios/{case}/").content
    assert f'href="/traces/{1:032x}/" id="case-trace"'.encode() in html
    thought = thought_actionable(agent)
    store_spans([span("1" * 16, trace_id="c" * 32, thought_ref=thought.pk)])
    html = owner_client.get(f"/stream/alpha/thoughts/{thought.pk}/").content
    assert f'href="/traces/{"c" * 32}/" id="thought-trace"'.encode() in html


def test_a_harness_trace_shows_the_artifacts_texts_and_links_back(
    owner_client: Any, run: Run
) -> None:
    case = case_ids(run)[0]
    harness_run_spans(run.run_id, [case])
    html = owner_client.get(f"/traces/{1:032x}/").content.decode()
    artifact = run.case_results.get(case_id=case).details
    assert "Situation frame sent to the model" in html
    assert artifact["frame"]["text"].splitlines()[0] in html
    assert f'href="/evals/runs/{run.run_id}/"' in html
    assert f'href="/evals/runs/{run.run_id}/scenarios/{case}/"' in html


def test_agent_page_shows_its_spend_and_a_chart(owner_client: Any, agent: Any) -> None:
    agent_trace(agent.pk, at=timezone.now())
    response = owner_client.get("/stream/alpha/")
    words = text(response.content.decode())
    assert "Model calls, last 30 days 2" in words
    assert "$0.000228 + unknown (1 unpriced call)" in words
    assert "in 1,200 out 80" in words
    figure = response.context["spend_figure"]
    assert [t["type"] for t in figure["data"]] == ["bar", "scatter"]
    # Thirty days, today last; days without calls are 0.
    assert len(figure["data"][0]["x"]) == 30
    assert figure["data"][0]["y"][-1] == 0.000228
    assert figure["data"][1]["y"] == [0] * 29 + [2]
    assert figure["data"][0]["customdata"][-1] == "2 calls, 1 unpriced (cost unknown)"
    assert json.dumps(figure)  # plain JSON for json_script
    assert 'href="/traces/?agent=alpha"' in response.content.decode()


def test_agent_page_without_calls_says_so_and_draws_nothing(
    owner_client: Any, agent: Any
) -> None:
    response = owner_client.get("/stream/alpha/")
    assert "No model call in the last 30 days." in response.content.decode()
    assert response.context["spend_figure"] is None
    assert "plotly" not in response.content.decode()


def test_the_site_nav_links_the_traces(owner_client: Any) -> None:
    html = owner_client.get("/traces/").content.decode()
    assert '<a href="/traces/" aria-current="page">Traces</a>' in html


def test_a_trace_page_costs_the_same_queries_for_3_spans_or_300(
    owner_client: Any, agent: Any
) -> None:
    def stored(count: int, trace: str) -> None:
        store_spans(
            [
                span(
                    f"{trace[:8]}{i:08x}",
                    trace_id=trace * 32,
                    parent_span_id="" if i == 0 else f"{trace[:8]}{0:08x}",
                    start_ms=i,
                    request_model="mystery-model-9",
                    attributes={"gen_ai.prompt": f"p{i}"},
                )
                for i in range(count)
            ],
            agent_id=agent.pk,
        )

    stored(3, "a")
    stored(300, "b")
    owner_client.get(f"/traces/{'a' * 32}/")
    with CaptureQueriesContext(connection) as few:
        owner_client.get(f"/traces/{'a' * 32}/")
    with CaptureQueriesContext(connection) as many:
        response = owner_client.get(f"/traces/{'b' * 32}/")
    assert response.content.decode().count('<li class="wf-row') == 300
    assert len(many.captured_queries) == len(few.captured_queries)


def test_a_harness_trace_reads_each_cases_artifact_once(
    owner_client: Any, run: Run
) -> None:
    case = case_ids(run)[0]
    store_spans(
        [
            span(
                f"{i:016x}",
                trace_id="d" * 32,
                source="harness",
                run_ref=run.run_id,
                case_ref=case,
                request_model="gpt-4o-mini",
            )
            for i in range(1, 21)
        ]
    )
    with CaptureQueriesContext(connection) as seen:
        response = owner_client.get(f"/traces/{'d' * 32}/")
    assert response.status_code == 200
    artifact_reads = [
        q for q in seen.captured_queries if "evals_caseresult" in q["sql"]
    ]
    assert len(artifact_reads) == 1


def test_a_trace_past_the_page_limit_shows_its_first_spans_and_says_so(
    owner_client: Any, agent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("traces.views.traces.MAX_SPANS_SHOWN", 5)
    store_spans(
        [span(f"{i:016x}", start_ms=i, name=f"step {i}") for i in range(8)],
        agent_id=agent.pk,
    )
    html = owner_client.get(f"/traces/{TRACE}/").content.decode()
    assert html.count('<li class="wf-row') == 5
    assert "more than 5 spans: the first 5 by start are shown" in html
    assert "step 4" in html and "step 5" not in html


def test_the_agent_filter_offers_only_the_agents_the_user_may_see(
    owner_client: Any, stranger_client: Any, agent: Any
) -> None:
    agent_trace(agent.pk)
    html = owner_client.get("/traces/?agent=alpha").content.decode()
    assert '<option value="alpha" selected>alpha</option>' in html
    assert html.count("<tr") == 5
    response = stranger_client.get("/traces/?agent=alpha")
    assert response.status_code == 400
    assert "Select a valid choice." in response.content.decode()
    assert '<option value="alpha"' not in response.content.decode()


def test_the_span_list_costs_the_same_queries_for_4_spans_or_a_full_page(
    owner_client: Any, agent: Any
) -> None:
    agent_trace(agent.pk, thought=3)
    owner_client.get("/traces/")
    with CaptureQueriesContext(connection) as few:
        owner_client.get("/traces/")
    store_spans(
        [
            span(
                f"{i:016x}",
                trace_id=f"{i:032x}",
                thought_ref=i,
                run_ref="r",
                case_ref=f"c{i}",
                request_model="mystery-model-9",
            )
            for i in range(100, 200)
        ],
        agent_id=agent.pk,
    )
    with CaptureQueriesContext(connection) as many:
        response = owner_client.get("/traces/")
    assert response.content.decode().count("<tr") == 51
    assert len(many.captured_queries) == len(few.captured_queries)
