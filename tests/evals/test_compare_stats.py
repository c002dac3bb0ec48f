"""The compare page and its JSON lead with paired verdicts: the same
numbers and words as the ``--stat`` gate on the same runs, the forest plot,
Holm when several comparisons share a page, flips (sortable, linked side by
side), scenarios in one run listed, and a clear 400 for runs of two
benchmarks."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from django.utils.html import escape

from evals.core.compare import CaseChange
from evals.core.compare_stats import case_link_ids, shown_interval, verdict_text
from evals.core.stats import epochs_of
from evals.core.stats_paired import compare
from evals.models import CaseResult, Run
from evals.services.compare import comparison_for_runs
from evals.services.compare_snapshots import comparison_for_snapshot
from tests.evals.compare_support import SCENARIOS, posted_run, store_snapshot

pytestmark = pytest.mark.django_db


def runs_with_flips(flips: int, *, prefix: str = "") -> tuple[Run, Run]:
    """40 scenarios; the candidate fails the first ``flips`` of them."""
    base = posted_run(f"{prefix}pack", f"{prefix}base", dict.fromkeys(SCENARIOS, True))
    candidate = posted_run(
        f"{prefix}pack",
        f"{prefix}cand",
        {s: index >= flips for index, s in enumerate(SCENARIOS)},
        minutes=10,
    )
    return base, candidate


def url(base: Run, candidate: Run, extra: str = "") -> str:
    return f"/evals/compare?base={base.run_id}&candidate={candidate.run_id}{extra}"


def test_ten_flips_in_forty_is_a_regression_with_mcnemar() -> None:
    base, candidate = runs_with_flips(10)

    stat = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    ).stat

    assert stat is not None
    (rate,) = stat.benchmarks[0].comparisons
    assert rate.verdict.value == "regression"
    assert (rate.n, rate.k) == (40, 1)
    assert rate.delta == pytest.approx(-0.25)
    assert rate.mcnemar is not None
    assert (rate.mcnemar.b, rate.mcnemar.c) == (10, 0)
    assert rate.mcnemar.p_value == pytest.approx(2 * 0.5**10)


def test_one_flip_in_forty_is_inconclusive_and_says_what_to_add(
    owner_client: Any,
) -> None:
    base, candidate = runs_with_flips(1)

    html = owner_client.get(url(base, candidate)).content.decode()

    lead = html.split('id="stat-verdicts"')[1].split("</section>")[0]
    assert "verdict-inconclusive" in lead
    assert "Add scenarios or repeats" in lead
    assert "40 × 1" in lead
    # The verdicts come before the plain gate's lines, which say what they are.
    assert html.index('id="stat-verdicts"') < html.index('id="gate-heading"')
    assert "What the Engram-compatible gate prints" in html


def test_page_numbers_match_the_json_and_the_gate(owner_client: Any) -> None:
    base, candidate = runs_with_flips(10)

    body = json.loads(owner_client.get(url(base, candidate, "&format=json")).content)
    html = owner_client.get(url(base, candidate)).content.decode()

    (bench,) = body["statistics"]["benchmarks"]
    (rate,) = bench["comparisons"]
    assert rate["verdict"] == "regression"
    assert rate["mcnemar"] == {"b": 10, "c": 0, "pValue": pytest.approx(0.001953125)}
    assert body["statistics"]["adjustment"] == "holm"
    assert [f["scenario"] for f in bench["flips"]] == SCENARIOS[:10]
    low, high = rate["interval"]
    assert f"-0.25 [{low:.4f}, {high:+.4f}]".replace("+", "") in html.replace("+", "")


def test_forest_plot_has_one_row_per_metric_coloured_by_verdict(
    owner_client: Any,
) -> None:
    base, candidate = runs_with_flips(10)

    response = owner_client.get(url(base, candidate))

    figure = response.context["forest_figure"]
    (trace,) = figure["data"]
    assert trace["y"] == ["passRate"]
    assert trace["text"] == ["regression"]
    assert trace["error_x"]["type"] == "data"
    assert figure["layout"]["xaxis"]["range"][1] > 0  # the no-change line shows


def test_snapshot_mode_adjusts_with_holm_and_says_so(owner_client: Any) -> None:
    a_base, a_cand = runs_with_flips(10, prefix="a-")
    b_base, b_cand = runs_with_flips(1, prefix="b-")
    store_snapshot("main", [a_base, b_base])

    comparison = comparison_for_snapshot(snapshot_id="main")
    html = owner_client.get("/evals/compare?snapshot=main").content.decode()

    assert comparison.stat is not None
    assert comparison.stat.comparison_count == 2
    rates = [b.comparisons[0] for b in comparison.stat.benchmarks]
    assert all(c.p_adjusted >= c.p_value for c in rates)
    assert max(c.p_adjusted for c in rates) > min(c.p_value for c in rates)
    assert "Holm-adjusted" in html
    assert "p (Holm-adjusted)" in html


def test_single_comparison_is_not_called_adjusted(owner_client: Any) -> None:
    base, candidate = runs_with_flips(10)

    html = owner_client.get(url(base, candidate)).content.decode()

    assert "Holm" not in html


def test_scenarios_in_one_run_only_are_listed(owner_client: Any) -> None:
    base = posted_run("pack", "r1", {"a": True, "b": True, "gone": True})
    candidate = posted_run("pack", "r2", {"a": True, "b": False, "new": True})

    html = owner_client.get(url(base, candidate)).content.decode()
    body = json.loads(owner_client.get(url(base, candidate, "&format=json")).content)

    rate = body["statistics"]["benchmarks"][0]["comparisons"][0]
    assert rate["onlyBase"] == ["gone"]
    assert rate["onlyCandidate"] == ["new"]
    assert rate["n"] == 2
    assert "1 scenario only in the base run" in html
    assert "1 scenario only in the candidate run" in html


def test_flips_sort_worst_or_gains_first_and_link_both_outputs(
    owner_client: Any,
) -> None:
    base = posted_run("pack", "r1", {"a": True, "b": False, "c": True})
    candidate = posted_run("pack", "r2", {"a": False, "b": True, "c": True})

    worst = owner_client.get(url(base, candidate)).context["flip_rows"]
    gains = owner_client.get(url(base, candidate, "&flips=gains")).context["flip_rows"]

    assert [(r.scenario, r.label) for r in worst] == [
        ("a", "pass → fail"),
        ("b", "fail → pass"),
    ]
    assert [r.scenario for r in gains] == ["b", "a"]
    assert worst[0].url == "/evals/compare/case?base=r1&candidate=r2&case=a"


def test_flip_chance_with_repeats_links_the_first_epoch(owner_client: Any) -> None:
    base = posted_run("pack", "r1", {"s#1": True, "s#2": True, "t#1": True})
    candidate = posted_run("pack", "r2", {"s#1": False, "s#2": True, "t#1": True})

    response = owner_client.get(url(base, candidate))
    html = response.content.decode()

    (row,) = response.context["flip_rows"]
    assert row.scenario == "s"
    assert row.to_fail == pytest.approx(0.5)
    assert row.label == "may flip"
    assert row.url is not None and row.url.endswith("case=s%231")
    assert "Chance pass → fail" in html
    assert "50%" in html


def test_runs_of_two_benchmarks_are_a_400_naming_the_field(
    owner_client: Any,
) -> None:
    posted_run("one", "r1", {"a": True})
    posted_run("two", "r2", {"a": True})

    page = owner_client.get("/evals/compare?base=r1&candidate=r2")
    answer = owner_client.get("/evals/compare?base=r1&candidate=r2&format=json")

    assert page.status_code == 400
    assert escape("candidate: runs of different benchmarks") in page.content.decode()
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "comparison_refused"
    assert error["fields"][0]["path"] == "?candidate"


def test_pass_rate_interval_is_drawn_within_where_a_change_can_be() -> None:
    tiny = compare(
        epochs_of(["a", "b", "c"], [0.0, 0.0, 1.0]),
        epochs_of(["a", "b", "c"], [1.0, 1.0, 1.0]),
        metric="passRate",
    )

    low, high = shown_interval(tiny)

    assert tiny.interval.high > 1  # the t interval on 3 pairs reaches past 1
    assert (low, high) == (tiny.interval.low, 1.0)
    assert verdict_text("", tiny).interval.endswith("+1]")


def test_verdict_text_without_pairs_says_to_add_scenarios() -> None:
    lonely = compare(epochs_of(["a"], [1.0]), epochs_of(["a"], [0.0]), metric="x")

    text = verdict_text("", lonely)

    assert math.isinf(lonely.mde)
    assert text.word == "inconclusive"
    assert "fewer than 2" in text.interval
    assert text.advice.startswith("Add scenarios")


def test_case_link_ids_pick_the_scenario_or_its_first_epoch() -> None:
    ids = ["a", "b#2", "b#1", "c#1"]

    assert case_link_ids(["a", "b", "zz"], ids) == {"a": "a", "b": "b#1"}


def test_a_kept_comparison_is_rebuilt_when_a_run_gains_a_case() -> None:
    base, candidate = runs_with_flips(10)
    first = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    )
    again = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    )
    CaseResult.objects.create(run=candidate, case_id="late", passed=False)

    after = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    )

    assert again is first  # kept: the runs and their cases did not change
    assert after is not first
    assert after.case_total == first.case_total + 1
    assert (
        after.change_counts[CaseChange.NEW] == first.change_counts[CaseChange.NEW] + 1
    )


def test_a_running_run_is_never_kept(owner_client: Any) -> None:
    base, candidate = runs_with_flips(10)
    Run.objects.filter(pk=candidate.pk).update(status=Run.Status.RUNNING)

    first = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    )
    again = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    )

    assert again is not first


def test_runs_without_case_results_are_compared_from_counts(
    owner_client: Any,
) -> None:
    for run_id, passed, minutes in (("r1", 40, 0), ("r2", 30, 10)):
        posted_run("pack", run_id, {}, minutes=minutes)
        Run.objects.filter(run_id=run_id).update(
            total_cases=40, passed_cases=passed, failed_cases=40 - passed
        )

    response = owner_client.get("/evals/compare?base=r1&candidate=r2")
    html = response.content.decode()

    (verdict,) = response.context["verdicts"]
    assert verdict.paired is False
    assert "counts only, not paired" in html
    assert "flips cannot be told" in html
    assert "No scenario flipped" not in html


def test_a_kept_comparison_is_rebuilt_when_a_run_is_updated_in_place() -> None:
    base, candidate = runs_with_flips(10)
    first = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    )
    Run.objects.filter(pk=candidate.pk).update(metrics={"score": 0.5})

    after = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    )

    assert after is not first
    assert [row.name for row in after.sections[0].metrics] == ["passRate", "score"]
