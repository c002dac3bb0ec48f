"""The comparison's case reads in the database (``evals.selectors.compare_cases``)
and the summary built from them say exactly what the per-case path says:
the same cases in the same order on every keyset page, the same filters,
counts and flips, the same plain and paired gates (repeats included). Runs
on SQLite and, with ``DATABASE_URL`` set, on PostgreSQL."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from evals.core.compare import (
    CaseChange,
    CaseFilter,
    cursor_from_text,
    cursor_text,
    diff_cases,
    filter_cases,
    sorted_cases,
)
from evals.core.compare_stats import case_link_ids
from evals.core.gate import evaluate_gate
from evals.core.gate_stat import evaluate_stat_gate
from evals.core.stats import group_cases
from evals.models import CaseResult, Run
from evals.selectors.compare_cases import (
    case_diffs_iter,
    case_diffs_page,
    change_counts,
    option_values,
)
from evals.selectors.compare_scenarios import scenario_case_ids, scenario_counts
from evals.selectors.runs import case_rows
from evals.services.compare import comparison_for_runs, run_summary_of, store_of
from evals.services.compare_kept import recent_comparisons_clear
from tests.evals.compare_support import posted_run

pytestmark = pytest.mark.django_db

KINDS = ("nightfall", "hunger_drop", "")
TAGS = (["night"], ["night", "edge"], [], ["Zed", "a b"])
# Ids that sort differently by code point than by a locale, ids whose
# "epoch" is not one, and repeats.
ODD_IDS = ("#", "x#", "#3", "a#b#2", "a#02", "B", "b", "a-1", "a_1", "Z#1", "é#1")


def stored_run(run_id: str, cases: dict[str, bool], *, minutes: int = 0) -> Run:
    def case_fields(index: int, case_id: str, ok: bool) -> dict[str, object]:
        return {
            "latency_ms": None if index % 5 == 0 else float(index),
            "stimulus_kind": KINDS[index % 3],
            "affordance": "allowed" if index % 2 else "",
            "tags": TAGS[index % 4],
            "error": "" if ok else "wrong",
        }

    return posted_run(
        "pack",
        run_id,
        cases,
        minutes=minutes,
        metrics={"latency_p50_ms": 400.0 + minutes},
        case_fields=case_fields,
    )


def mixed_runs(seed: int = 7) -> tuple[Run, Run]:
    """Scenarios with 1 to 3 epochs, odd ids, flips both ways, new and
    missing cases."""
    rng = random.Random(seed)
    ids = [f"s{i:02d}#{e}" for i in range(30) for e in range(rng.randint(1, 3))]
    ids += list(ODD_IDS)
    base = {case_id: rng.random() < 0.7 for case_id in ids if rng.random() < 0.92}
    candidate = {case_id: rng.random() < 0.6 for case_id in ids if rng.random() < 0.92}
    return stored_run("base", base), stored_run("cand", candidate, minutes=10)


def per_case(base: Run, candidate: Run) -> list:
    rows = case_rows([base.pk, candidate.pk])
    return list(
        sorted_cases(
            diff_cases(
                "pack",
                base=rows[base.pk],
                candidate=rows[candidate.pk],
                base_run_id=base.run_id,
                candidate_run_id=candidate.run_id,
            )
        )
    )


def test_every_keyset_page_joins_to_the_per_case_order_and_rows() -> None:
    base, candidate = mixed_runs()
    pairs = comparison_for_runs(base_run_id="base", candidate_run_id="cand").pairs
    expected = per_case(base, candidate)

    seen = []
    after = None
    while True:
        page, after = case_diffs_page(pairs, CaseFilter(), after=after, limit=7)
        seen.extend(page)
        if after is None:
            break

    assert seen == expected
    assert list(case_diffs_iter(pairs, CaseFilter(), chunk=5)) == expected
    assert {case.change for case in expected} == set(CaseChange)


@pytest.mark.parametrize(
    "wanted",
    [
        CaseFilter(only="regressions"),
        CaseFilter(only="changed"),
        CaseFilter(change="new"),
        CaseFilter(change="missing", stimulus_kind="nightfall"),
        CaseFilter(affordance="allowed"),
        CaseFilter(tag="edge"),
        CaseFilter(tag="a b", only="changed"),
        CaseFilter(benchmark="other"),
    ],
)
def test_filters_and_counts_match_the_per_case_filter(wanted: CaseFilter) -> None:
    base, candidate = mixed_runs(11)
    pairs = comparison_for_runs(base_run_id="base", candidate_run_id="cand").pairs
    expected = filter_cases(per_case(base, candidate), wanted)

    assert list(case_diffs_iter(pairs, wanted, chunk=4)) == expected
    counts = Counter(case.change for case in expected)
    assert change_counts(pairs, wanted) == {c: counts.get(c, 0) for c in CaseChange}


def test_the_options_are_those_the_cases_show() -> None:
    base, candidate = mixed_runs(3)
    pairs = comparison_for_runs(base_run_id="base", candidate_run_id="cand").pairs
    cases = per_case(base, candidate)

    found = option_values(pairs)

    assert found.stimulus_kinds == tuple(
        sorted({c.stimulus_kind for c in cases if c.stimulus_kind})
    )
    assert found.affordances == ("allowed",)
    assert found.tags == ("Zed", "a b", "edge", "night")


def test_scenario_counts_group_as_the_statistics_do() -> None:
    base, _ = mixed_runs(5)
    ids = list(base.case_results.order_by("case_id").values_list("case_id", "passed"))
    groups = group_cases([case_id for case_id, _ in ids])
    by_name: dict[str, list[int]] = {name: [0, 0] for name in groups.scenarios}
    for row, (_, passed) in zip(groups.rows.tolist(), ids, strict=True):
        by_name[groups.scenarios[row]][0] += 1
        by_name[groups.scenarios[row]][1] += int(passed)

    found = scenario_counts([base.pk])[base.pk]

    assert sorted(found) == sorted((s, n, c) for s, (n, c) in by_name.items())


def test_the_summary_is_exactly_the_per_case_gates_with_repeats() -> None:
    for seed in (1, 2, 3):
        CaseResult.objects.all().delete()
        Run.objects.all().delete()
        recent_comparisons_clear()
        base, candidate = mixed_runs(seed)
        rows = case_rows([base.pk, candidate.pk])
        base_store = store_of("run base", [run_summary_of(base, rows[base.pk])])
        candidate_store = store_of(
            "run cand", [run_summary_of(candidate, rows[candidate.pk])]
        )
        verdict = evaluate_gate(base=base_store, candidate=candidate_store)
        stat = evaluate_stat_gate(verdict, base=base_store, candidate=candidate_store)

        comparison = comparison_for_runs(base_run_id="base", candidate_run_id="cand")

        assert comparison.verdict == verdict
        assert comparison.stat == stat
        assert comparison.stat.benchmarks[0].comparisons[0].k > 1
        counts = Counter(c.change for c in per_case(base, candidate))
        assert comparison.change_counts == {c: counts.get(c, 0) for c in CaseChange}


def test_flipped_scenarios_link_the_case_the_full_list_links() -> None:
    mixed_runs(9)
    (pair,) = comparison_for_runs(base_run_id="base", candidate_run_id="cand").pairs
    scenarios = ["s01", "s02", "a#b", "#", "a", "Z", "nothing"]
    every = sorted(set(CaseResult.objects.values_list("case_id", flat=True)))

    for epochs in (1, 3):
        found = scenario_case_ids(pair, scenarios, epochs=epochs)
        assert case_link_ids(scenarios, found) == case_link_ids(scenarios, every)
        assert set(found) <= set(every)


def test_a_cursor_reads_back_and_a_forged_one_is_refused() -> None:
    cursor = (3, "pack", "é#1 ünïcode")

    assert cursor_from_text(cursor_text(cursor)) == cursor
    for bad in ("", "%%", cursor_text((9, "a", "b")), "W10", "WzEsMiwzXQ"):
        with pytest.raises(ValueError, match="after is not a cursor"):
            cursor_from_text(bad)
