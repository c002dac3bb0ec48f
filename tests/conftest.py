"""Shared fixtures: three actors, an agent with its key, API clients.

Services: tests marked ``postgres`` need DATABASE_URL=postgres://..., tests
marked ``redis`` need CELERY_BROKER_URL=redis://.... Without the service they
skip with the reason; with REQUIRE_SERVICES=1 (CI) a missing service fails.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from django.conf import settings
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

from core.scopes import SCOPES
from tests.builders import user_make

# Property tests check answers, not time: no per-example deadline (the
# default 200 ms fails examples at random on a loaded 2-core machine).
# Loaded here, before the test modules build their own @settings from it.
hypothesis_settings.register_profile("evalsite", deadline=None)
hypothesis_settings.load_profile("evalsite")

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES", "") in ("1", "true")


def _service_missing(marker: str) -> str | None:
    if marker == "postgres":
        engine = settings.DATABASES["default"]["ENGINE"]
        if "postgresql" not in engine:
            return "needs PostgreSQL: set DATABASE_URL=postgres://..."
    if marker == "redis" and not settings.CELERY_BROKER_URL.startswith("redis://"):
        return "needs Redis: set CELERY_BROKER_URL=redis://..."
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in ("postgres", "redis"):
        if item.get_closest_marker(marker) is None:
            continue
        reason = _service_missing(marker)
        if reason:
            if REQUIRE_SERVICES:
                pytest.fail(f"REQUIRE_SERVICES=1 but {reason}", pytrace=False)
            pytest.skip(reason)


def _inside_a_transaction() -> bool:
    """True inside a ``transaction.atomic`` block the code under test opened
    (the test case's own wrapping transaction does not count)."""
    from django.db import connection

    return any(
        not getattr(block, "_from_testcase", False)
        for block in connection.atomic_blocks
    )


@pytest.fixture(autouse=True, scope="session")
def _pack_files_outside_the_checkout(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Pack files any test stores go to a temporary directory, never ``var/``
    (the evals tests give each test its own)."""
    settings.PACK_FILES_DIR = tmp_path_factory.mktemp("pack-files")


@pytest.fixture(autouse=True)
def _no_network_call_inside_a_transaction(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule for every test: a model, GitHub or the broker is never called
    while a database transaction is open (a slow answer would hold its locks,
    and a worker could act on rows that are not committed yet). Every HTTP
    request goes through ``httpx.Client.send`` and every task publish through
    ``Task.apply_async``; either one inside a transaction fails the test."""
    import httpx
    from celery.app.task import Task

    def guarded(original: Any, what: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if _inside_a_transaction():
                pytest.fail(f"{what} inside a database transaction", pytrace=True)
            return original(*args, **kwargs)

        return call

    monkeypatch.setattr(
        httpx.Client, "send", guarded(httpx.Client.send, "an HTTP request")
    )
    monkeypatch.setattr(
        Task, "apply_async", guarded(Task.apply_async, "a task publish")
    )


@pytest.fixture
def owner(db: None) -> Any:
    return user_make("alice", password="pw-alice")


@pytest.fixture
def member(db: None) -> Any:
    return user_make("bob", password="pw-bob")


@pytest.fixture
def stranger(db: None) -> Any:
    return user_make("charlie", password="pw-charlie")


@pytest.fixture
def staff(db: None) -> Any:
    return user_make("staff", password="pw-staff", is_staff=True, is_superuser=True)


@pytest.fixture
def created_agent(owner: Any, member: Any) -> Any:
    from stream.services.agents import agent_create

    # The shared test key may do everything; each scope alone is covered by
    # tests/evalsite/test_authorization.py.
    created = agent_create(name="alpha", owner=owner, scopes=SCOPES)
    created.agent.members.add(member)
    return created


@pytest.fixture
def agent(created_agent: Any) -> Any:
    return created_agent.agent


@pytest.fixture
def api_key(created_agent: Any) -> str:
    return created_agent.api_key


@pytest.fixture
def agent_client(api_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key}")
    return client


@pytest.fixture
def anon_client() -> APIClient:
    return APIClient()


def _logged_in(user: Any) -> Any:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def owner_client(owner: Any) -> Any:
    return _logged_in(owner)


@pytest.fixture
def member_client(member: Any) -> Any:
    return _logged_in(member)


@pytest.fixture
def stranger_client(stranger: Any) -> Any:
    return _logged_in(stranger)


@pytest.fixture
def log_lines(caplog: pytest.LogCaptureFixture) -> Any:
    """``log_lines()`` -> every captured message, exactly as emitted."""
    caplog.set_level("DEBUG")

    def lines(prefix: str = "") -> list[str]:
        return [
            r.getMessage() for r in caplog.records if r.getMessage().startswith(prefix)
        ]

    return lines


@pytest.fixture
def staff_client(staff: Any) -> Any:
    return _logged_in(staff)
