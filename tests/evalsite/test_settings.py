"""Settings come from the environment, strictly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_", "LOG_"))
    }
    base.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_debug_off_without_secret_key_fails_clearly() -> None:
    result = run_manage("check", DJANGO_DEBUG="false")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY (or DJANGO_SECRET_KEY_FILE) must be set" in result.stderr


def test_malformed_boolean_is_refused() -> None:
    result = run_manage("check", DJANGO_DEBUG="yes-please")
    assert result.returncode != 0
    assert "DJANGO_DEBUG must be one of true/false/1/0" in result.stderr


def test_secret_key_file_is_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s" * 60 + "\n")
    result = run_manage(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.SECRET_KEY)",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY_FILE=str(secret),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("s" * 60)


@pytest.mark.parametrize(("debug", "expected_error_id"), [("false", None)])
def test_check_deploy_is_clean_under_production_env(
    debug: str, expected_error_id: str | None
) -> None:
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "ERROR",
        DJANGO_DEBUG=debug,
        DJANGO_SECRET_KEY="x7Gq" * 16,
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
    )
    assert result.returncode == 0, result.stderr
    assert "ERRORS" not in result.stderr


def test_check_deploy_warns_about_embedded_broker() -> None:
    result = run_manage(
        "check", "--deploy", DJANGO_DEBUG="false", DJANGO_SECRET_KEY="x7Gq" * 16
    )
    assert "evalsite.W001" in result.stderr
