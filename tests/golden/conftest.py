"""The golden answers' switch: ``--golden-update`` (or ``GOLDEN_UPDATE=1``)
rewrites ``tests/golden/answers/*.json`` instead of comparing with them."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--golden-update",
        action="store_true",
        default=False,
        help="rewrite the golden API answers instead of comparing with them",
    )


@pytest.fixture
def golden_update(request: pytest.FixtureRequest) -> bool:
    # The option exists only when this conftest is loaded at start-up (pytest
    # tests/golden); the variable works from any invocation.
    option = bool(request.config.getoption("--golden-update", default=False))
    return option or os.environ.get("GOLDEN_UPDATE", "") in ("1", "true")


FROZEN_AT = datetime(2026, 3, 6, 12, 0, tzinfo=UTC)


@pytest.fixture
def frozen_clock() -> Any:
    """Every clock the code reads (``timezone.now``, ``time.time``) says
    ``FROZEN_AT`` and does not move."""
    with time_machine.travel(FROZEN_AT, tick=False) as traveller:
        yield traveller
