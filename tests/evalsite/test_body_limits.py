"""Request bodies are capped before anything reads them, and forms with too
many fields or files get the API's JSON error body under ``/api/``."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


class NeverRead(io.RawIOBase):
    """A body stream that fails the test if anything reads it."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        pytest.fail("the request body was read")


def declared_only(client: Any, path: str, length: int, **extra: Any) -> Any:
    """POST with a declared ``Content-Length`` and a body nobody may read."""
    return client.generic(
        "POST",
        path,
        b"",
        content_type="multipart/form-data; boundary=x",
        CONTENT_LENGTH=str(length),
        **{"wsgi.input": NeverRead(), **extra},
    )


def test_an_oversized_login_post_is_refused_before_the_csrf_check_reads_it(
    settings: Any, log_lines: Any
) -> None:
    client = Client(enforce_csrf_checks=True)
    client.cookies["csrftoken"] = "made-up"
    size = settings.REQUEST_MAX_BODY_BYTES + 1

    response = declared_only(client, "/accounts/login/", size)

    assert response.status_code == 413
    assert "Request too large" in response.content.decode()
    assert log_lines("[Ops] request_refused") == [
        f"[Ops] request_refused reason=body_too_large bytes={size} "
        f"limit={settings.REQUEST_MAX_BODY_BYTES}"
    ]


def test_an_oversized_api_body_gets_the_json_error_unread(
    agent_client: APIClient, settings: Any
) -> None:
    settings.REQUEST_MAX_BODY_BYTES = 4096
    response = declared_only(agent_client, "/api/benchmarks/packs", 4097)

    message = "The request body is 4097 bytes; this server accepts at most 4096."
    assert response.status_code == 413
    assert response.json() == {
        "error": {
            "code": "too_large",
            "message": message,
            "fields": [{"path": "header:Content-Length", "message": message}],
        }
    }


def test_the_default_cap_leaves_room_for_an_api_body_at_its_limit(
    settings: Any,
) -> None:
    assert settings.REQUEST_MAX_BODY_BYTES == (
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1024 * 1024
    )


def test_more_than_1000_form_fields_under_api_get_the_json_error(
    agent_client: APIClient,
) -> None:
    body = "&".join(f"f{i}=x" for i in range(1001))
    response = agent_client.generic(
        "POST",
        "/api/gridworld/verify",
        body,
        content_type="application/x-www-form-urlencoded",
    )

    message = "The form has more than 1000 fields."
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "code": "too_many_parts",
            "message": message,
            "fields": [{"path": "$", "message": message}],
        }
    }


def test_more_than_100_files_under_api_get_the_json_error(
    agent_client: APIClient,
) -> None:
    files = {f"f{i}": io.BytesIO(b"x") for i in range(101)}
    for name, handle in files.items():
        handle.name = f"{name}.txt"
    response = agent_client.post("/api/benchmarks/packs", files, format="multipart")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "too_many_parts"
    assert response.json()["error"]["message"] == "The form has more than 100 files."


def test_too_many_fields_on_a_page_stay_an_html_400(owner_client: Any) -> None:
    body = "&".join(f"f{i}=x" for i in range(1001))
    response = owner_client.generic(
        "POST",
        "/accounts/login/",
        body,
        content_type="application/x-www-form-urlencoded",
    )

    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
