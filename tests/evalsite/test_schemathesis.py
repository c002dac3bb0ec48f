"""The OpenAPI schema tells the truth: schemathesis over every operation.

In-process (the WSGI application, no network), with an agent key and with a
staff session: every operation answers no server error, only status codes
and bodies its schema declares, and accepts the requests the schema calls
valid. A handful of examples per operation keeps the run short.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi import checks

from evalsite.wsgi import application

pytestmark = pytest.mark.django_db

EXAMPLES = 6
# Semantic rules beyond the schema (a run's benchmark must exist, its counts
# must agree, an id must be free) refuse some schema-valid documents with a
# documented 400/409, so schema-valid acceptance is not a property of this
# API. A session cookie is still sent when a probe drops the bearer key, so
# the unauthenticated probe is judged for the agent key only.
CHECKED = [
    not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_headers_conformance,
    checks.response_schema_conformance,
    checks.missing_required_header,
]
CHECKS = {"agent": [*CHECKED, checks.ignored_auth], "staff": CHECKED}
CSRF_SECRET = "hardeninghardeninghardeninghard0"  # 32 characters, like Django's


@pytest.fixture
def in_process_app() -> Any:
    """The WSGI app inside the test transaction: as Django's test client does,
    requests must not close the test's database connection."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def identities(settings: Any, api_key: str, staff: Any) -> dict[str, dict[str, Any]]:
    settings.EVAL_HARNESS_ENABLED = True
    settings.EVAL_SHADOW_MODE_ENABLED = True
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    settings.BENCHMARK_DELTA_REPORTER_ENABLED = True
    settings.ALLOWED_HOSTS = ["*"]
    client = Client()
    client.force_login(staff)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {
        "agent": {"headers": {"Authorization": f"Bearer {api_key}"}, "cookies": {}},
        "staff": {
            "headers": {"X-CSRFToken": CSRF_SECRET},
            "cookies": {
                settings.SESSION_COOKIE_NAME: session,
                settings.CSRF_COOKIE_NAME: CSRF_SECRET,
            },
        },
    }


def api_operations(app: Any) -> list[Any]:
    loaded = schemathesis.openapi.from_wsgi("/api/schema/?format=json", app)
    return [result.ok() for result in loaded.get_all_operations()]


def test_every_operation_keeps_its_schema(
    in_process_app: Any, identities: dict[str, dict[str, Any]]
) -> None:
    failures: dict[str, str] = {}
    operations = api_operations(in_process_app)
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def check(case: Any) -> None:
            for name, identity in identities.items():
                case.call_and_validate(
                    headers=identity["headers"],
                    cookies=identity["cookies"],
                    checks=CHECKS[name],
                )

        try:
            check()
        except (AssertionError, BaseExceptionGroup) as error:
            failures[operation.label] = str(error)[:1500]
    assert len(operations) >= 30
    assert not failures, "\n\n".join(f"{k}: {v}" for k, v in failures.items())
