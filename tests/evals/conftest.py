"""Fixtures the evals tests share.

Every evals test writes run artifacts and pack files under its own
temporary directory (``artifacts``, autouse), never into the checkout. ``suites`` is a private
copy of the shipped suites, free to edit; ``flags_on`` turns on every
seed-002 feature flag; ``client`` is an API client logged in as the owner, ``pack`` the example
manifest posted through it.
Example documents are ``evals.examples``'.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from evals.examples import example_manifest
from evals.models import Benchmark

SHIPPED_SUITES = Path(__file__).resolve().parents[2] / "evals" / "suites"


@pytest.fixture(autouse=True)
def artifacts(
    settings: Any, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    settings.EVALS_ARTIFACTS_DIR = tmp_path / "artifacts"
    settings.PACK_FILES_DIR = tmp_path_factory.mktemp("pack-files")
    return Path(settings.EVALS_ARTIFACTS_DIR)


@pytest.fixture
def suites(settings: Any, tmp_path: Path) -> Path:
    """A private copy of the shipped suites, free to edit."""
    target = tmp_path / "suites"
    shutil.copytree(SHIPPED_SUITES, target)
    settings.EVALS_SUITES_DIR = target
    return target


@pytest.fixture
def flags_on(settings: Any) -> Any:
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = True
    settings.MEMORY_RED_TEAM_BENCH_ENABLED = True
    return settings


@pytest.fixture
def client(owner: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(owner)
    return api


@pytest.fixture
def staff_api(staff: Any) -> APIClient:
    """Storing baselines and replacing packs need staff (or a key's scope;
    tests/evalsite/test_authorization.py covers who may do what)."""
    api = APIClient()
    api.force_authenticate(staff)
    return api


@pytest.fixture
def pack(client: APIClient) -> Benchmark:
    response = client.post("/api/benchmarks/packs", example_manifest(), format="json")
    assert response.status_code == 201
    return Benchmark.objects.get(benchmark_id="ama-memory")
