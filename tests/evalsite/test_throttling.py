"""API keys are throttled (API_KEY_THROTTLE_RATE); sessions are not."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def three_a_minute(settings: Any) -> None:
    settings.API_KEY_THROTTLE_RATE = "3/minute"
    cache.clear()


def test_a_key_past_its_rate_gets_429_with_retry_after(agent_client: Any) -> None:
    answers = [agent_client.get("/api/whoami") for _ in range(4)]

    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[3].json()["error"]["code"] == "throttled"
    assert 0 < int(answers[3]["Retry-After"]) <= 60


def test_sessions_are_not_throttled(owner_client: Any) -> None:
    answers = [owner_client.get("/api/evals/runs") for _ in range(5)]

    assert {a.status_code for a in answers} == {200}


def test_the_default_rate_is_documented() -> None:
    from pathlib import Path

    from django.conf import settings

    readme = (Path(settings.BASE_DIR) / "README.md").read_text()
    assert "| `API_KEY_THROTTLE_RATE` | `1200/minute` |" in readme
