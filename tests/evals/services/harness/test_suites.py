"""The eval harness service: suites on disk (EV-C1 versions, EV-C2 invalid
lines) and the options a run is refused for before anything is stored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from core.errors import CoreError, SchemaInvalid
from evals.core.suite_types import SuiteInvalid
from evals.models import Benchmark, Run, SuiteVersion
from evals.services.harness.create import eval_run_create
from tests.evals.harness_support import (
    SHIPPED,
    lines_of,
    run_suite,
    sha256_of,
    stored_counts,
    write_lines,
)

pytestmark = pytest.mark.django_db


# --- EV-C1 -------------------------------------------------------------------


def test_ev_c1_edited_suite_shows_new_line_count_and_sha_on_next_run(
    suites: Path, log_lines: Any
) -> None:
    smoke = suites / "smoke.jsonl"
    first_sha = sha256_of(smoke)
    run_suite(smoke)
    extra = json.loads(lines_of(smoke)[0])
    extra["scenario_id"] = "smoke:stable-plains-again"
    write_lines(smoke, [*lines_of(smoke), json.dumps(extra)])
    script = suites / "smoke.script.jsonl"
    write_lines(
        script,
        [
            *lines_of(script),
            json.dumps({"scenario_id": extra["scenario_id"], "output": "All calm."}),
        ],
    )

    second = run_suite(smoke)

    assert log_lines("[Eval] suite_loaded") == [
        f"[Eval] suite_loaded path={smoke} line_count=5 suite_sha256={first_sha}",
        f"[Eval] suite_loaded path={smoke} line_count=6 suite_sha256={sha256_of(smoke)}",
    ]
    assert second.total_cases == 6
    assert second.case_results.count() == 6
    benchmark = Benchmark.objects.get(benchmark_id="smoke")
    assert benchmark.kind == Benchmark.Kind.SUITE
    assert benchmark.case_count == 6
    assert sorted(
        benchmark.suite_versions.values_list("suite_sha256", "line_count")
    ) == sorted([(first_sha, 5), (sha256_of(smoke), 6)])


def test_ev_c1_same_file_twice_is_one_version(suites: Path) -> None:
    run_suite(suites / "smoke.jsonl")
    run_suite(suites / "smoke.jsonl")

    assert SuiteVersion.objects.count() == 1
    assert Run.objects.filter(benchmark__benchmark_id="smoke").count() == 2


# --- EV-C2 -------------------------------------------------------------------


def test_ev_c2_every_invalid_line_is_logged_and_nothing_is_stored(
    tmp_path: Path, log_lines: Any
) -> None:
    good = lines_of(SHIPPED / "smoke.jsonl")[0]
    bad = json.loads(good)
    bad["bogus"] = 1
    bad["stimulus"]["strength"] = 2
    suite = tmp_path / "broken.jsonl"
    suite.write_text(f"{json.dumps(bad)}\n\n{{bad json\n{good}\n", encoding="utf-8")
    shutil.copy(SHIPPED / "smoke.script.jsonl", tmp_path / "broken.script.jsonl")

    with pytest.raises(SuiteInvalid) as caught:
        eval_run_create(
            suite_path=suite,
            profile="balanced",
            mode="thought_only",
            model="scripted",
        )

    assert [i.line for i in caught.value.invalid_lines] == [1, 3, 4]
    assert log_lines("[Eval] suite_invalid") == [
        f"[Eval] suite_invalid path={suite} line=1 errors="
        '[{"path":"$.bogus","message":"unknown property: bogus"},'
        '{"path":"$.stimulus.strength","message":"2 is greater than the maximum '
        'of 1"}]',
        f"[Eval] suite_invalid path={suite} line=3 errors="
        '[{"path":"$","message":"invalid JSON: Expecting property name enclosed '
        'in double quotes at column 2"}]',
        f"[Eval] suite_invalid path={suite} line=4 errors="
        '[{"path":"$.scenario_id","message":"duplicate scenario_id '
        "'smoke:stable-plains' (first defined on line 1)\"}]",
    ]
    assert log_lines("[Eval] suite_loaded") == []
    assert stored_counts() == (0, 0, 0, 0)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("profile", "huge"),
        ("mode", "sideways"),
        ("model", "gpt-99"),
        ("sampler", "wild"),
    ],
)
def test_unknown_option_is_refused_before_anything_is_read_or_stored(
    option: str, value: str, log_lines: Any
) -> None:
    options = {
        "profile": "balanced",
        "mode": "thought_only",
        "model": "scripted",
        option: value,
    }

    with pytest.raises(SchemaInvalid) as caught:
        eval_run_create(suite_path=SHIPPED / "smoke.jsonl", **options)

    assert [p.path for p in caught.value.problems] == [option]
    assert caught.value.problems[0].code == "invalid_choice"
    assert log_lines("[Eval]") == []
    assert stored_counts() == (0, 0, 0, 0)


def test_scripted_model_without_a_script_file_is_a_clear_error(
    tmp_path: Path,
) -> None:
    suite = tmp_path / "lonely.jsonl"
    shutil.copy(SHIPPED / "smoke.jsonl", suite)

    with pytest.raises(CoreError) as caught:
        eval_run_create(
            suite_path=suite, profile="minimal", mode="thought_only", model="scripted"
        )

    assert caught.value.code == "script_unreadable"
    assert str(tmp_path / "lonely.script.jsonl") in caught.value.message
    assert stored_counts() == (0, 0, 0, 0)
