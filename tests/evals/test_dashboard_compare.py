"""The compare page: gate verdict and lines, metrics, flipped cases, filters,
pagination, downloads, snapshot mode, the side-by-side case page, and a
query count that does not depend on the number of cases."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape

from evals.cli import main as gate_main
from evals.core.compare import CaseChange, CaseFilter, filter_cases
from evals.core.gate_report import verdict_to_markdown
from evals.core.run_configs import configuration_differences
from evals.core.runs import validate_run_summary
from evals.core.store_writer import EvalStore
from evals.models import Run
from evals.services.compare import comparison_for_runs
from evals.services.compare_snapshots import comparison_for_snapshot
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_execute
from tests.evals import compare_support
from tests.evals.compare_support import store_snapshot

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("suites")]

SHIPPED = Path(__file__).resolve().parents[2] / "evals" / "suites"
REGRESSION_LINES = [
    "idle-v1 pass rate regressed (1 -> 0.9)",
    "idle-v1 compulsion_count 0 -> 2",
    "idle-v1 compulsion_proxy 0 -> 0.25",
]


def harness_run(script: str | None = None) -> Run:
    run = eval_run_create(
        suite_path=SHIPPED / "idle-v1.jsonl",
        profile="balanced",
        mode="thought_only",
        model="scripted",
        script_path=SHIPPED / script if script else None,
        schedule=False,
    )
    return run_execute(run=run)


@pytest.fixture
def good() -> Run:
    return harness_run()


@pytest.fixture
def regressed(good: Run) -> Run:
    return harness_run("idle-v1-regressed.script.jsonl")


def flipped_ids(base: Run, candidate: Run) -> list[str]:
    before = dict(base.case_results.values_list("case_id", "passed"))
    after = dict(candidate.case_results.values_list("case_id", "passed"))
    return sorted(k for k in after if before.get(k) is True and not after[k])


def posted_run(
    benchmark_id: str,
    run_id: str,
    cases: dict[str, bool],
    *,
    kinds: dict[str, tuple[str, str, list[str]]] | None = None,
    **fields: Any,
) -> Run:
    """A run as if posted over REST; each case result has a latency, its
    details, and the (stimulus kind, affordance, tags) ``kinds`` gives it."""
    kinds = kinds or {}

    def case_fields(index: int, case_id: str, ok: bool) -> dict[str, Any]:
        kind, affordance, tags = kinds.get(case_id, ("", "", []))
        return {
            "latency_ms": 100.0 + index,
            "stimulus_kind": kind,
            "affordance": affordance,
            "tags": tags,
            "details": {"caseId": case_id, "passed": ok},
        }

    return compare_support.posted_run(
        benchmark_id, run_id, cases, case_fields=case_fields, **fields
    )


def compare_url(base: Run, candidate: Run, extra: str = "") -> str:
    return f"/evals/compare?base={base.run_id}&candidate={candidate.run_id}{extra}"


# --- the gate's verdict -----------------------------------------------------------


def test_regression_lines_are_the_gates_own(good: Run, regressed: Run) -> None:
    comparison = comparison_for_runs(
        base_run_id=good.run_id, candidate_run_id=regressed.run_id
    )

    assert comparison.verdict.passed is False
    assert list(comparison.verdict.regressions) == REGRESSION_LINES
    assert comparison.verdict.improvements == ()


def test_page_lines_match_the_ci_gate_over_exported_stores(
    good: Run, regressed: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base_dir, candidate_dir = tmp_path / "base", tmp_path / "candidate"
    EvalStore(base_dir).write_run(validate_run_summary(good.summary))
    EvalStore(candidate_dir).write_run(validate_run_summary(regressed.summary))

    code = gate_main(
        ["--base", str(base_dir), "--candidate", str(candidate_dir), "--workers", "1"]
    )
    printed = capsys.readouterr().out
    page = comparison_for_runs(
        base_run_id=good.run_id, candidate_run_id=regressed.run_id
    )

    assert code == 1
    section = printed.split("## Regressions\n")[1].split("\n\n")[0]
    assert section.splitlines() == [f"- {line}" for line in REGRESSION_LINES]
    assert list(page.verdict.regressions) == [line[2:] for line in section.splitlines()]
    assert "## Flipped Cases" in verdict_to_markdown(page.verdict)


def test_page_shows_verdict_regression_rows_and_flipped_cases(
    owner_client: Any, good: Run, regressed: Run
) -> None:
    response = owner_client.get(compare_url(good, regressed))

    assert response.status_code == 200
    html = response.content.decode()
    assert '<span class="fail">FAIL</span>' in html
    for line in REGRESSION_LINES:
        assert f'<li class="bad">{escape(line)}</li>' in html
    flips = flipped_ids(good, regressed)
    assert len(flips) == 2
    for case_id in flips:
        assert f"<code>{case_id}</code>" in html.split('id="flipped-cases"')[1]
    assert "pass -&gt; fail: 2" in html
    assert "<script>" not in html
    assert 'src="/static/evals/js/figures.js"' in html


def test_metrics_are_side_by_side_and_coloured_by_direction(
    owner_client: Any, good: Run, regressed: Run
) -> None:
    html = owner_client.get(compare_url(good, regressed)).content.decode()

    assert (
        '<tr class="bad"><th scope="row"><code>compulsion_proxy</code></th>'
        '<td>0</td><td>0.25</td><td class="delta bad">+0.25</td>'
        '<td class="muted">lower is better</td><td class="bad">regression</td></tr>'
    ) in html
    # action_rate is neutral (the stream contract: action_rate may be zero): shown,
    # never judged.
    assert (
        '<tr class=""><th scope="row"><code>action_rate</code></th>'
        '<td>0.3</td><td>0.45</td><td class="delta ">+0.15</td>'
        '<td class="muted">neutral (never judged)</td><td class="">neutral</td></tr>'
    ) in html


def test_metrics_table_says_it_scrolls_sideways_on_phones(
    owner_client: Any, good: Run, regressed: Run
) -> None:
    html = owner_client.get(compare_url(good, regressed)).content.decode()

    assert (
        '<p class="scroll-hint" aria-hidden="true">Swipe the table sideways for '
        'the delta and outcome columns →</p>\n<div class="table-wrap">'
        '<table class="metrics">'
    ) in html


def test_reverse_comparison_lists_improvements_in_green(
    owner_client: Any, good: Run, regressed: Run
) -> None:
    html = owner_client.get(compare_url(regressed, good)).content.decode()

    assert '<li class="good">idle-v1 pass rate improved (0.9 -&gt; 1)</li>' in html
    assert '<li class="good">idle-v1 compulsion_proxy 0.25 -&gt; 0</li>' in html
    assert '<td class="delta good">-0.25</td>' in html
    assert "fail -&gt; pass: 2" in html


# --- cases: new, missing, filters, pagination ----------------------------------------


def test_new_and_missing_cases_and_both_flips() -> None:
    posted_run("pack", "r1", {"a": True, "b": False, "c": True, "gone": True})
    posted_run(
        "pack", "r2", {"a": False, "b": True, "c": True, "fresh": False}, minutes=5
    )

    comparison = comparison_for_runs(base_run_id="r1", candidate_run_id="r2")

    assert [(c.case_id, c.change) for c in comparison.cases] == [
        ("a", CaseChange.PASS_TO_FAIL),
        ("b", CaseChange.FAIL_TO_PASS),
        ("fresh", CaseChange.NEW),
        ("gone", CaseChange.MISSING),
        ("c", CaseChange.STILL_PASSING),
    ]
    delta = comparison.verdict.deltas[0]
    assert delta.cases_flipped_to_fail == ("a",)
    assert delta.cases_flipped_to_pass == ("b",)


def test_filters_work_as_a_plain_get_form(owner_client: Any) -> None:
    kinds = {
        "a": ("nightfall", "discouraged", ["night"]),
        "b": ("hunger_drop", "allowed", ["food"]),
        "c": ("nightfall", "expected", ["night", "edge"]),
    }
    posted_run("pack", "r1", {"a": True, "b": True, "c": False}, kinds=kinds)
    posted_run("pack", "r2", {"a": False, "b": True, "c": True}, kinds=kinds, minutes=5)
    base = "/evals/compare?base=r1&candidate=r2"

    def shown(query: str) -> list[str]:
        html = owner_client.get(base + query).content.decode()
        table = html.split('id="case-table"')[1].split("</table>")[0]
        return [part.split('"')[0] for part in table.split("&amp;case=")[1:]]

    assert shown("") == ["a", "c", "b"]
    assert shown("&only=regressions") == ["a"]
    assert shown("&only=changed") == ["a", "c"]
    assert shown("&kind=nightfall") == ["a", "c"]
    assert shown("&affordance=allowed") == ["b"]
    assert shown("&tag=edge") == ["c"]
    assert shown("&change=fail_to_pass&kind=hunger_drop") == []
    html = owner_client.get(base).content.decode()
    assert (
        '<form class="filters" method="get" action="/evals/compare#cases-heading"'
        in html
    )
    assert '<input type="hidden" name="base" value="r1">' in html


def test_case_table_pages_by_keyset_worst_first_and_keeps_the_filters(
    owner_client: Any,
) -> None:
    cases = {f"case-{i:03d}": True for i in range(120)}
    posted_run("pack", "r1", cases)
    posted_run("pack", "r2", {**cases, "case-060": False}, minutes=5)

    def table(html: str) -> list[str]:
        part = html.split('id="case-table"')[1].split("</table>")[0]
        return [cell.split("<")[0] for cell in part.split("<code>")[1:]]

    first = owner_client.get("/evals/compare?base=r1&candidate=r2&only=").content
    html = first.decode()
    shown = table(html)
    assert shown[:3] == ["case-060", "case-000", "case-001"]
    assert len(shown) == 50
    assert "120 of 120 cases shown" in html
    assert 'rel="next">Next page</a>' in html
    link = html.split('" rel="next"')[0].rsplit('href="', 1)[1].replace("&amp;", "&")
    assert link.startswith("?base=r1&candidate=r2&after=")
    assert link.endswith("#cases-heading")
    second = owner_client.get("/evals/compare" + link.split("#")[0]).content.decode()
    assert table(second)[0] == "case-049"
    assert table(second)[-1] == "case-099"
    assert 'rel="first">First page</a>' in second

    filtered = owner_client.get(
        "/evals/compare?base=r1&candidate=r2&change=still_passing"
    ).content.decode()
    link = filtered.split('" rel="next"')[0].rsplit('href="', 1)[1]
    assert "change=still_passing&amp;after=" in link
    third = owner_client.get(
        "/evals/compare" + link.replace("&amp;", "&").split("#")[0]
    ).content.decode()
    assert table(third)[0] == "case-050"
    assert "119 of 120 cases shown (filtered)" in third


def test_a_cursor_that_is_not_one_answers_400(owner_client: Any) -> None:
    posted_run("pack", "r1", {"a": True})
    posted_run("pack", "r2", {"a": False}, minutes=5)

    page = owner_client.get("/evals/compare?base=r1&candidate=r2&after=zz")
    answer = owner_client.get(
        "/evals/compare?base=r1&candidate=r2&after=W10&format=json"
    )

    assert page.status_code == 400
    assert "after is not a cursor of this case table" in page.content.decode()
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["fields"] == [
        {"path": "?after", "message": "after is not a cursor of this case table"}
    ]


def test_filter_cases_by_every_field() -> None:
    posted_run("pack", "r1", {"a": True, "b": True})
    posted_run("pack", "r2", {"a": False, "b": True}, minutes=5)
    cases = comparison_for_runs(base_run_id="r1", candidate_run_id="r2").cases

    assert [c.case_id for c in filter_cases(cases, CaseFilter())] == ["a", "b"]
    assert [c.case_id for c in filter_cases(cases, CaseFilter(benchmark="x"))] == []
    assert [
        c.case_id for c in filter_cases(cases, CaseFilter(change="still_passing"))
    ] == ["b"]


# --- warnings: the same run, runs configured differently ----------------------------


def test_a_run_compared_with_itself_says_so_at_the_top(
    owner_client: Any, good: Run
) -> None:
    comparison = comparison_for_runs(
        base_run_id=good.run_id, candidate_run_id=good.run_id
    )
    html = owner_client.get(compare_url(good, good)).content.decode()
    body = json.loads(owner_client.get(compare_url(good, good, "&format=json")).content)

    warning = (
        f"Base and candidate are the same run ({good.run_id}): nothing can differ, "
        "so this PASS says nothing about a change. Pick two different runs."
    )
    assert comparison.verdict.passed is True
    assert comparison.warnings == (warning,)
    assert body["warnings"] == [warning]
    assert (
        '<p class="note warning" role="status"><strong>Warning:</strong> '
        f"{escape(warning)}</p>"
    ) in html
    assert html.index("Warning:") < html.index('<details class="card picker"')


def test_runs_configured_differently_get_a_warning_page_and_json(
    owner_client: Any, good: Run
) -> None:
    other = run_execute(
        run=eval_run_create(
            suite_path=SHIPPED / "idle-v1.jsonl",
            profile="rich",
            mode="thought_only",
            model="scripted",
            script_path=SHIPPED / "idle-v1-regressed.script.jsonl",
            seed=7,
            schedule=False,
        )
    )

    html = owner_client.get(compare_url(good, other)).content.decode()
    body = json.loads(
        owner_client.get(compare_url(good, other, "&format=json")).content
    )

    warning = (
        "the runs were configured differently (seed 0 vs 7; script "
        "idle-v1.script.jsonl vs idle-v1-regressed.script.jsonl; profile balanced "
        "vs rich), so their differences may come from the configuration, not "
        "from the change."
    )
    assert body["warnings"] == [warning]
    assert body["configurationDifferences"] == [
        {"benchmarkId": "idle-v1", "field": "seed", "base": "0", "candidate": "7"},
        {
            "benchmarkId": "idle-v1",
            "field": "script",
            "base": "idle-v1.script.jsonl",
            "candidate": "idle-v1-regressed.script.jsonl",
        },
        {
            "benchmarkId": "idle-v1",
            "field": "profile",
            "base": "balanced",
            "candidate": "rich",
        },
    ]
    assert f"<strong>Warning:</strong> {escape(warning)}</p>" in html
    assert html.index("Warning:") < html.index('<section class="tiles"')


def test_runs_configured_alike_get_no_warning(good: Run) -> None:
    again = harness_run()

    comparison = comparison_for_runs(
        base_run_id=good.run_id, candidate_run_id=again.run_id
    )

    assert comparison.warnings == ()
    assert comparison.differences == ()


def test_configuration_differences_cover_mode_model_and_suite_version() -> None:
    base = {"mode": "thought_only", "modelId": "baseline", "seed": 1}
    candidate = {"mode": "end_to_end", "modelId": "openai:gpt-x", "seed": 1}

    found = configuration_differences(
        base, candidate, base_suite_sha256="a" * 64, candidate_suite_sha256="b" * 64
    )

    assert [d.as_text() for d in found] == [
        "mode thought_only vs end_to_end",
        "model baseline vs openai:gpt-x",
        "suite version aaaaaaaaaaaa vs bbbbbbbbbbbb",
    ]
    # Runs recorded from summaries carry no configuration: nothing to compare.
    assert configuration_differences({}, {}) == ()


# --- downloads --------------------------------------------------------------------


def test_json_download_holds_the_gate_report_and_the_filtered_cases(
    owner_client: Any, good: Run, regressed: Run
) -> None:
    response = owner_client.get(
        compare_url(good, regressed, "&only=regressions&format=json")
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = json.loads(response.content)
    assert body["mode"] == "runs"
    assert body["gate"]["passed"] is False
    assert body["gate"]["regressions"] == REGRESSION_LINES
    assert [c["caseId"] for c in body["cases"]] == flipped_ids(good, regressed)
    assert {c["change"] for c in body["cases"]} == {"pass_to_fail"}
    assert body["caseCounts"]["pass_to_fail"] == 2
    assert body["caseCounts"]["still_passing"] == 18
    assert body["filters"] == {"only": "regressions"}
    rate = body["benchmarks"][0]["metrics"][0]
    assert rate == {
        "name": "passRate",
        "base": 1.0,
        "candidate": 0.9,
        "delta": -0.1,
        "direction": "higher_is_better",
        "outcome": "regression",
    }


def test_csv_downloads_of_cases_and_metrics(owner_client: Any) -> None:
    posted_run("pack", "r1", {"a": True}, metrics={"recallPrecisionAtK": 0.5})
    posted_run(
        "pack", "r2", {"a": False}, metrics={"recallPrecisionAtK": 0.75}, minutes=5
    )

    cases = owner_client.get("/evals/compare?base=r1&candidate=r2&format=csv")
    metrics = owner_client.get("/evals/compare?base=r1&candidate=r2&format=metrics.csv")

    assert cases["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="compare-r1-r2-cases.csv"' in cases["Content-Disposition"]
    assert cases.streaming  # written while the rows are read
    body = b"".join(cases.streaming_content).decode()
    assert list(csv.reader(io.StringIO(body))) == [
        [
            "benchmark_id",
            "case_id",
            "change",
            "base_run_id",
            "base_passed",
            "base_latency_ms",
            "candidate_run_id",
            "candidate_passed",
            "candidate_latency_ms",
            "latency_delta_ms",
            "stimulus_kind",
            "affordance",
            "tags",
        ],
        [
            "pack",
            "a",
            "pass_to_fail",
            "r1",
            "true",
            "100.0",
            "r2",
            "false",
            "100.0",
            "0.0",
            "",
            "",
            "",
        ],
    ]
    assert list(csv.reader(io.StringIO(metrics.content.decode()))) == [
        [
            "benchmark_id",
            "metric",
            "base",
            "candidate",
            "delta",
            "direction",
            "outcome",
        ],
        ["pack", "passRate", "1.0", "0.0", "-1.0", "higher_is_better", "regression"],
        [
            "pack",
            "recallPrecisionAtK",
            "0.5",
            "0.75",
            "0.25",
            "higher_is_better",
            "improvement",
        ],
    ]


def test_markdown_download_is_the_gate_report(
    owner_client: Any, good: Run, regressed: Run
) -> None:
    response = owner_client.get(compare_url(good, regressed, "&format=md"))
    comparison = comparison_for_runs(
        base_run_id=good.run_id, candidate_run_id=regressed.run_id
    )

    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response.content.decode() == verdict_to_markdown(comparison.verdict)


# --- snapshot mode -------------------------------------------------------------------


def test_snapshot_against_latest_runs_uses_snapshot_wording(
    owner_client: Any, good: Run
) -> None:
    store_snapshot("required-main", [good])
    regressed = harness_run("idle-v1-regressed.script.jsonl")

    comparison = comparison_for_snapshot(snapshot_id="required-main")
    html = owner_client.get("/evals/compare?snapshot=required-main").content.decode()

    assert list(comparison.verdict.regressions) == REGRESSION_LINES
    assert comparison.sections[0].candidate_run_id == regressed.run_id
    assert [c.case_id for c in comparison.cases[:2]] == flipped_ids(good, regressed)
    assert "baseline <code>required-main</code> vs latest runs" in html
    assert f'<li class="bad">{escape(REGRESSION_LINES[0])}</li>' in html


# --- refusals -------------------------------------------------------------------------


def test_unknown_run_or_snapshot_is_404_with_the_reason(owner_client: Any) -> None:
    posted_run("pack", "r1", {"a": True})

    response = owner_client.get("/evals/compare?base=r1&candidate=nope")
    assert response.status_code == 404
    assert "no run &#x27;nope&#x27;" in response.content.decode()
    response = owner_client.get("/evals/compare?snapshot=nope")
    assert response.status_code == 404
    assert "benchmark baseline snapshot not found: nope" in response.content.decode()


def test_runs_of_different_benchmarks_are_refused(owner_client: Any) -> None:
    posted_run("one", "r1", {"a": True})
    posted_run("two", "r2", {"a": True})

    response = owner_client.get("/evals/compare?base=r1&candidate=r2")

    assert response.status_code == 400
    assert (
        "runs of different benchmarks cannot be compared: one vs two"
        in response.content.decode()
    )


def test_no_parameters_shows_the_picker_and_half_a_pair_is_400(
    owner_client: Any,
) -> None:
    posted_run("pack", "r1", {"a": True})

    picker = owner_client.get("/evals/compare")
    half = owner_client.get("/evals/compare?base=r1")

    assert picker.status_code == 200
    assert '<option value="r1">' in picker.content.decode()
    assert half.status_code == 400
    assert "Give both a base and a candidate run." in half.content.decode()


def test_running_run_gets_a_note(owner_client: Any) -> None:
    posted_run("pack", "r1", {"a": True})
    posted_run("pack", "r2", {"a": True}, minutes=5, status=Run.Status.RUNNING)

    comparison = comparison_for_runs(base_run_id="r1", candidate_run_id="r2")

    assert comparison.notes == (
        "candidate run r2 is running: the gate compares completed runs only.",
    )
    assert comparison.verdict.regressions == (
        "candidate is missing latest completed benchmark run for pack",
    )


@pytest.mark.parametrize(
    "url",
    [
        "/evals/compare",
        "/evals/compare?base=r1&candidate=r2",
        "/evals/compare/case?base=r1&candidate=r2&case=a",
    ],
)
def test_pages_need_login(client: Any, url: str) -> None:
    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


# --- one case side by side --------------------------------------------------------------


def test_case_page_shows_both_artifacts_side_by_side(
    owner_client: Any, good: Run, regressed: Run
) -> None:
    case_id = flipped_ids(good, regressed)[0]
    before = good.case_results.get(case_id=case_id).details
    after = regressed.case_results.get(case_id=case_id).details

    response = owner_client.get(
        f"/evals/compare/case?base={good.run_id}&candidate={regressed.run_id}"
        f"&case={case_id}"
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert '<span class="badge change-pass_to_fail">pass -&gt; fail</span>' in html
    assert html.count("<pre>[Bot State]") == 2
    assert before["frame"]["text"].split("\n")[0] in html
    assert after["convertEligibleReason"] in html
    assert "fail (compulsion)" in html
    assert 'class="differs"' in html
    for run in (good, regressed):
        assert f'href="/evals/runs/{run.run_id}/scenarios/{case_id}/"' in html
        assert (
            f'href="/evals/runs/{run.run_id}/artifacts/scenarios/{case_id}.json"'
            in html
        )


def test_case_page_of_a_case_only_one_side_has(owner_client: Any) -> None:
    posted_run("pack", "r1", {"a": True})
    posted_run("pack", "r2", {"a": True, "fresh": False}, minutes=5)

    html = owner_client.get(
        "/evals/compare/case?base=r1&candidate=r2&case=fresh"
    ).content.decode()

    assert '<span class="badge change-new">new</span>' in html
    assert "not in the base run" in html


def test_case_page_of_an_unknown_case_is_404(owner_client: Any) -> None:
    posted_run("pack", "r1", {"a": True})
    posted_run("pack", "r2", {"a": True}, minutes=5)

    response = owner_client.get("/evals/compare/case?base=r1&candidate=r2&case=zz")

    assert response.status_code == 404
    assert "neither run has case &#x27;zz&#x27;" in response.content.decode()


# --- query count --------------------------------------------------------------------------


def _compare_queries(client: Any, cases: int, prefix: str) -> int:
    ids = {f"{prefix}-{i:04d}": True for i in range(cases)}
    posted_run(prefix, f"{prefix}-base", ids)
    posted_run(prefix, f"{prefix}-cand", {**ids, f"{prefix}-0000": False}, minutes=5)
    url = f"/evals/compare?base={prefix}-base&candidate={prefix}-cand"
    client.get(url)  # session and user warm, as for any second request
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


def test_query_count_does_not_depend_on_the_number_of_cases(
    owner_client: Any,
) -> None:
    small = _compare_queries(owner_client, 10, "small")
    large = _compare_queries(owner_client, 200, "large")

    assert small == large
    # session, user, both runs in one query, the case rows' count and newest
    # pk (the comparison is kept), then one page of cases (ranked on ids and
    # outcomes, then its rows read whole), the case ids of the flipped
    # scenarios shown; the spans of both runs (cost and latency) in one query
    assert small == 8


def test_case_page_query_count_is_constant(owner_client: Any) -> None:
    counts = []
    for size, prefix in ((10, "s"), (200, "l")):
        ids = {f"{prefix}-{i:04d}": True for i in range(size)}
        posted_run(prefix, f"{prefix}-base", ids)
        posted_run(prefix, f"{prefix}-cand", ids, minutes=5)
        url = (
            f"/evals/compare/case?base={prefix}-base&candidate={prefix}-cand"
            f"&case={prefix}-0001"
        )
        owner_client.get(url)
        with CaptureQueriesContext(connection) as queries:
            owner_client.get(url)
        counts.append(len(queries))

    assert counts[0] == counts[1]
