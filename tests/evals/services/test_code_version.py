"""EV-C4: a run names the code that made its numbers; claims are measured apart.

Every scenario run records the prompt template (id + digest), the
sanitizer's normalise map and the grounding vocabulary (versions and
digests), the claim-grounding rules and the code version in its config and
``summary.json``; comparing two runs whose versions differ says so.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from core.canonical import sha256_hex
from evals.core.provenance import pipeline_versions
from evals.models import Run
from evals.services.code_version import _git_head
from evals.services.compare import comparison_for_runs
from evals.services.harness.create import eval_run_create
from evals.services.runs.lifecycle import run_execute
from stream.core.goals import NORMALIZE_MAP_VERSION
from stream.core.prompts import TEMPLATES

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[3] / "evals" / "suites"


@pytest.fixture(autouse=True)
def artifacts(settings: Any, tmp_path: Path) -> Path:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    settings.EVALSITE_CODE_VERSION = "0123456789abcdef0123456789abcdef01234567"
    return Path(settings.EVALS_ARTIFACTS_DIR)


def run_suite(
    suite: str = "idle-v1.jsonl", script: str | None = None, **options: Any
) -> Run:
    run = eval_run_create(
        suite_path=SHIPPED / suite,
        profile="balanced",
        mode="thought_only",
        model="scripted",
        script_path=SHIPPED / script if script else None,
        schedule=False,
        **options,
    )
    return run_execute(run=run)


def test_ev_c4_versions_in_run_config_and_summary() -> None:
    run = run_suite()
    versions = run.config["versions"]
    assert versions["promptTemplate"] == {
        "id": "inner_thought.v1",
        "sha256": sha256_hex(TEMPLATES["inner_thought.v1"]),
    }
    assert versions["sanitizer"]["normalizeMapVersion"] == NORMALIZE_MAP_VERSION
    assert len(versions["sanitizer"]["digest"]) == 64
    assert len(versions["grounding"]["digest"]) == 64
    assert versions["claimGrounding"]["version"] == 1
    assert len(versions["claimGrounding"]["digest"]) == 64
    assert versions["code"] == {"gitCommit": "0123456789abcdef0123456789abcdef01234567"}
    summary = json.loads((Path(run.artifacts_dir) / "summary.json").read_text())
    assert summary["run"]["versions"] == versions


def test_ev_c4_code_version_falls_back_to_the_checkouts_git_commit(
    settings: Any,
) -> None:
    settings.EVALSITE_CODE_VERSION = ""
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"],  # noqa: S607
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if not head:
        pytest.skip("not a git checkout: the code version is unknown (null)")
    _git_head.cache_clear()
    run = run_suite("smoke.jsonl")
    assert run.config["versions"]["code"] == {"gitCommit": head}


def test_ev_c4_compare_warns_when_versions_differ() -> None:
    base = run_suite()
    candidate = run_suite(script="idle-v1-regressed.script.jsonl")
    same = comparison_for_runs(base_run_id=base.run_id, candidate_run_id=base.run_id)
    assert not [n for n in same.notes if "differs" in n]

    versions = dict(candidate.config["versions"])
    versions["promptTemplate"] = {"id": "inner_thought.v2", "sha256": "f" * 64}
    versions["code"] = {"gitCommit": "fedcba9876543210fedcba9876543210fedcba98"}
    Run.objects.filter(pk=candidate.pk).update(
        config={**candidate.config, "versions": versions}
    )
    comparison = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    )
    template = sha256_hex(TEMPLATES["inner_thought.v1"])
    assert [n for n in comparison.notes if "differs" in n] == [
        f"prompt template differs: id inner_thought.v1, sha256 {template[:12]} vs "
        f"id inner_thought.v2, sha256 {'f' * 12}",
        "code version differs: 0123456789ab vs fedcba987654",
    ]


def test_ev_c4_a_run_without_versions_is_named() -> None:
    base = run_suite()
    candidate = run_suite(script="idle-v1-regressed.script.jsonl")
    config = {k: v for k, v in base.config.items() if k != "versions"}
    Run.objects.filter(pk=base.pk).update(config=config)
    comparison = comparison_for_runs(
        base_run_id=base.run_id, candidate_run_id=candidate.run_id
    )
    assert (
        "the base run recorded no pipeline versions: a difference caused by code "
        "cannot be ruled out"
    ) in comparison.notes


def test_pa_d1_claims_are_their_own_metric_and_change_no_verdict(
    log_lines: Any,
) -> None:
    run = run_suite()
    meadow = run.case_results.get(case_id="idle-v1:stable-meadow-day")
    assert meadow.details["claims"] == {
        "version": 1,
        "checked": 2,
        "pass": False,
        "ungrounded": [{"name": "meadow", "category": "missing_location"}],
    }
    assert meadow.passed is True  # the scenario's verdict is the upstream one
    assert run.metrics["claim_hallucination_count"] == 1
    assert run.metrics["hallucination_count"] == 0
    assert 0 < run.metrics["claim_grounding_rate"] < 1
    assert run.verdict_passed is True
    assert log_lines("[Claims]") == [
        "[Claims] ungrounded scenario=idle-v1:stable-meadow-day "
        "names=missing_location:meadow"
    ]
    assert not [line for line in log_lines("[Grounding]") if "meadow" in line]


def test_pipeline_versions_are_stable_and_name_the_template() -> None:
    assert pipeline_versions(git_commit=None) == pipeline_versions(git_commit=None)
    assert pipeline_versions()["code"] == {"gitCommit": None}
    with pytest.raises(KeyError):
        pipeline_versions(template="no-such-template")
