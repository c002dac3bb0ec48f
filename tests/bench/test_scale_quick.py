"""The scale bench's generator and growth rule, without a database
(``bench/scale.py`` itself runs on Postgres only)."""

from __future__ import annotations

from bench.scale import COMPARE_CASES, print_table, verdicts
from bench.scale_data import (
    CASE_COLUMNS,
    THOUGHT_COLUMNS,
    TREND_RUNS,
    Generator,
    zipf_share,
)


def generator() -> Generator:
    names = ["scale-compare", "scale-trend", "scale-grid"] + [
        f"scale-suite-{k:02d}" for k in range(40)
    ]
    return Generator(
        agent_ids=list(range(1, 1001)),
        benchmark_pks={name: k for k, name in enumerate(names, 1)},
        grid_map_pk=1,
    )


def thought_rows(count: int) -> list[dict[str, str]]:
    text = "".join(generator().thought_lines(count))
    return [
        dict(zip(THOUGHT_COLUMNS, line.split("\t"), strict=True))
        for line in text.splitlines()
    ]


def test_thought_rows_hold_the_model_constraints() -> None:
    rows = thought_rows(2000)

    assert len(rows) == 2000
    for row in rows:
        assert row["goal_key"] != ""
        if row["convert_eligible"] == "t":
            assert row["grounding_passed"] == "t"
            assert row["goal_key"] != "\\N"
            assert row["processed"] == "f"
        if row["processed"] == "t":
            assert row["processed_at"] != "\\N"
    assert sum(row["convert_eligible"] == "t" for row in rows) == 20
    assert sum(row["broadcast"] == "f" for row in rows) == 400


def test_agents_are_skewed_a_few_hold_most() -> None:
    rows = thought_rows(20_000)
    per_agent: dict[str, int] = {}
    for row in rows:
        per_agent[row["agent_id"]] = per_agent.get(row["agent_id"], 0) + 1
    ranked = sorted(per_agent.values(), reverse=True)

    assert zipf_share(0) > 0.17
    assert zipf_share(999) < 0.0002
    assert ranked[0] > 0.16 * 20_000
    assert sum(ranked[:10]) > 0.4 * 20_000


def test_runs_spread_the_level_cases_and_cap_the_trend_benchmark() -> None:
    gen = generator()
    gen.compare_run_pks = (1, 2)
    gen.compare_cases = COMPARE_CASES

    plan = gen.plan_runs(1_000_000, COMPARE_CASES)

    assert sum(size for _, size in plan) == 1_000_000
    assert len(plan) == 10_000
    assert sum(name == "scale-trend" for name, _ in plan) == TREND_RUNS
    assert sum(name == "scale-grid" for name, _ in plan) == 1000


def test_case_lines_have_every_column() -> None:
    text = "".join(generator().case_lines(run_pk=7, first=0, count=50, seed=1))
    lines = text.splitlines()

    assert len(lines) == 50
    assert all(len(line.split("\t")) == len(CASE_COLUMNS) for line in lines)
    assert lines[0].split("\t")[:2] == ["7", "c000000"]


def test_growth_rule_allows_log_n_with_slack_and_ignores_noise() -> None:
    sizes = (10**4, 10**5, 10**6)
    table = {
        "flat": [5.0, 5.0, 6.0],
        "log": [5.0, 10.0, 17.0],
        "linear": [5.0, 10.0, 100.0],
        "tiny": [0.2, 0.3, 1.5],
    }

    rows = {path: failed for path, _, _, _, failed in verdicts(table, sizes)}

    assert rows == {"flat": False, "log": False, "linear": True, "tiny": False}


def test_growth_is_judged_against_the_floor_of_the_same_level() -> None:
    sizes = (10**4, 10**5, 10**6)
    table = {
        "feed": [5.0, 10.0, 30.0],
        "floor": [1.0, 1.0, 2.0],
    }

    rows = {path: (g, a, bad) for path, g, a, _, bad in verdicts(table, sizes, "floor")}

    assert rows == {"feed": (3.0, 1.5, False), "floor": (2.0, 1.0, False)}


def test_quick_sizes_judge_from_the_smaller_size(capsys) -> None:
    failed = print_table({"recent": [4.0, 9.0], "list": [4.0, 7.0]}, (10**4, 10**5))

    assert failed == ["recent"]
    assert "FAIL (> 1.88x)" in capsys.readouterr().out


def test_a_quieter_machine_at_the_top_size_does_not_inflate_growth() -> None:
    sizes = (10**5, 10**6)
    table = {"list": [40.0, 45.0], "floor": [3.0, 1.0]}

    rows = {path: (g, a, bad) for path, g, a, _, bad in verdicts(table, sizes, "floor")}

    assert rows["list"] == (1.125, 1.125, False)
