"""The OpenAPI schema generates without warnings; Swagger UI works offline."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_schema_generates_without_warnings() -> None:
    out, err = StringIO(), StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out, stderr=err)
    assert "openapi: 3" in out.getvalue()
    assert err.getvalue() == ""


def test_schema_endpoint_serves_yaml(owner_client: Any) -> None:
    response = owner_client.get("/api/schema/")
    assert response.status_code == 200
    assert b"openapi: 3" in response.content


def test_swagger_ui_uses_local_assets(owner_client: Any) -> None:
    response = owner_client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn" not in html.lower()
    assert "<script>" not in html  # no inline scripts (CSP script-src 'self')
