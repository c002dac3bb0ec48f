"""Login, the overview, navigation, static assets and health."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db

NAV_PAGES = [
    "/stream/",
    "/evals/",
    "/benchmarks/",
    "/baselines/",
    "/gridworld/",
    "/prkeepalive/",
]


def test_login_page_renders(client: Any) -> None:
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert b"Log in to evalsite" in response.content


@pytest.mark.parametrize("path", ["/", *NAV_PAGES])
def test_pages_need_login(client: Any, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize("path", ["/", *NAV_PAGES])
def test_every_nav_page_renders_with_the_nav_bar(owner_client: Any, path: str) -> None:
    response = owner_client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    for label in (
        "Stream",
        "Evals",
        "Benchmarks",
        "Baselines",
        "Gridworld",
        "PR keepalive",
    ):
        assert f">{label}</a>" in html
    assert 'aria-current="page"' in html or path == "/"


def test_login_with_password_reaches_overview(client: Any, owner: Any) -> None:
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": "pw-alice"}, follow=True
    )
    assert response.status_code == 200
    assert b"<h1>Overview</h1>" in response.content


def test_csp_header_forbids_inline_scripts(owner_client: Any) -> None:
    response = owner_client.get("/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]


def test_plotly_is_vendored_not_from_a_cdn() -> None:
    vendored = sorted(
        Path(settings.BASE_DIR, "static", "vendor").glob("plotly-*.min.js")
    )
    assert vendored, "plotly.js must be vendored under static/vendor/"
    assert vendored[0].stat().st_size > 1_000_000


def test_healthz_reports_database_and_broker(client: Any) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True
    assert body["broker"] in ("embedded", "external")
    assert body["workerLastSeenS"] is None


@pytest.mark.skipif(
    not settings.CELERY_BROKER_IS_EMBEDDED, reason="the embedded broker's folder"
)
def test_healthz_makes_a_missing_embedded_queue_folder(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "broker" / "queue"
    options = {
        **settings.CELERY_BROKER_TRANSPORT_OPTIONS,
        "data_folder_in": str(folder),
    }
    monkeypatch.setattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", options)
    assert client.get("/healthz").json()["ok"] is True
    assert folder.is_dir()


@pytest.mark.skipif(
    not settings.CELERY_BROKER_IS_EMBEDDED, reason="the embedded broker's folder"
)
def test_healthz_reports_an_embedded_queue_folder_that_cannot_be_made(
    client: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    options = {
        **settings.CELERY_BROKER_TRANSPORT_OPTIONS,
        "data_folder_in": str(blocker / "queue"),
    }
    monkeypatch.setattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", options)
    caplog.set_level(logging.WARNING, logger="evalsite.services")
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["brokerOk"] is False
    assert (
        "[Ops] health_failed part=broker "
        "reason=the embedded broker's queue folder is not writable"
    ) in caplog.messages


def test_heartbeat_task_records_worker(client: Any) -> None:
    from evalsite.tasks import record_heartbeat

    record_heartbeat.delay("beat")
    record_heartbeat.delay("beat")
    from evalsite.models import WorkerHeartbeat

    row = WorkerHeartbeat.objects.get(source="beat")
    assert row.beats == 2
    assert client.get("/healthz").json()["workerLastSeenS"] is not None


def test_favicon_is_a_real_icon_without_login(client: Any) -> None:
    response = client.get("/favicon.ico")

    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert "max-age=86400" in response["Cache-Control"]
    icon = b"".join(response.streaming_content)
    # An ICO directory (reserved 0, type 1) holding 16 and 32 pixel PNGs.
    assert icon[:4] == b"\x00\x00\x01\x00"
    assert icon.count(b"\x89PNG") == 2


def test_pages_link_the_icon(client: Any) -> None:
    html = client.get("/accounts/login/").content.decode()

    assert '<link rel="icon" href="/static/favicon.ico" sizes="16x16 32x32">' in html
