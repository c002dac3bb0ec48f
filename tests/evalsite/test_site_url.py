"""SITE_URL: the base of the links commands print, written by `make demo PORT=N`."""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from evals.models import Run
from evalsite.envfile import (
    main as envfile_main,
)
from evalsite.envfile import (
    parse_env_file,
    point_demo_env_at_port,
    write_demo_env,
)
from evalsite.siteurl import env_site_url
from gridworld.models import EpisodeBatch

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ["--suite", "smoke", "--profile", "balanced", "--mode", "thought_only"]


def test_site_url_defaults_to_the_demo_address_and_drops_a_trailing_slash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SITE_URL", raising=False)
    assert env_site_url() == "http://127.0.0.1:8000"
    monkeypatch.setenv("SITE_URL", "https://evalsite.example.com/lab/")
    assert env_site_url() == "https://evalsite.example.com/lab"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("abc", "must be an http:// or https:// URL with a host"),
        ("127.0.0.1:8000", "must be an http:// or https:// URL with a host"),
        ("ftp://host", "must be an http:// or https:// URL with a host"),
        ("http://", "must be an http:// or https:// URL with a host"),
        ("http://host/?next=1", "must be a scheme, host, optional port and path only"),
        ("http://user:pw@host", "must be a scheme, host, optional port and path only"),
        ("http://host:0", "must have a port between 1 and 65535 when it names one"),
        ("http://host:99999", "must have a port between 1 and 65535 when it names one"),
    ],
)
def test_a_malformed_site_url_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str, reason: str
) -> None:
    monkeypatch.setenv("SITE_URL", value)
    with pytest.raises(ImproperlyConfigured) as refused:
        env_site_url()
    assert str(refused.value) == (
        f"SITE_URL {reason} (e.g. http://127.0.0.1:8000), got {value!r}"
    )


def test_a_malformed_site_url_stops_start_up_with_one_line_and_exit_2() -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DJANGO_DEBUG": "true",
        "EVALSITE_ENV_FILE": "",
        "SITE_URL": "localhost:8001",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (result.returncode, result.stderr) == (
        2,
        "error: SITE_URL must be an http:// or https:// URL with a host "
        "(e.g. http://127.0.0.1:8000), got 'localhost:8001'\n",
    )


@pytest.mark.django_db
def test_eval_run_prints_its_link_on_the_configured_site_url(
    settings: Any, tmp_path: Path, django_capture_on_commit_callbacks: Any
) -> None:
    settings.SITE_URL = "http://127.0.0.1:8765"
    settings.EVALS_ARTIFACTS_DIR = tmp_path
    out = StringIO()
    with django_capture_on_commit_callbacks():
        call_command("eval_run", *SMOKE, "--model", "scripted", stdout=out)

    run = Run.objects.get()
    assert out.getvalue().splitlines()[-1] == (
        f"url: http://127.0.0.1:8765/evals/runs/{run.run_id}/"
    )


@pytest.mark.django_db
def test_gridworld_run_prints_its_link_on_the_configured_site_url(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.SITE_URL = "http://127.0.0.1:8765"
    out = StringIO()
    with django_capture_on_commit_callbacks():
        call_command("gridworld_run", "--map", "hazard", "--episodes", "2", stdout=out)

    batch = EpisodeBatch.objects.get()
    assert out.getvalue().splitlines()[-1] == (
        f"url: http://127.0.0.1:8765/gridworld/batches/{batch.pk}/"
    )


def test_make_demo_writes_the_port_to_env(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    assert envfile_main(["--demo", str(env_file), "--port", "8765"]) == 0

    assert parse_env_file(env_file.read_text())["SITE_URL"] == "http://127.0.0.1:8765"


def test_demo_on_another_port_rewrites_only_the_site_url_line(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    write_demo_env(env_file, 8000)
    before = parse_env_file(env_file.read_text())

    assert point_demo_env_at_port(env_file, 8765) is True
    assert point_demo_env_at_port(env_file, 8765) is False

    after = parse_env_file(env_file.read_text())
    assert after == {**before, "SITE_URL": "http://127.0.0.1:8765"}


def test_an_env_file_from_before_site_url_gets_the_line(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("DJANGO_DEBUG=true\nDJANGO_SECRET_KEY=k")

    assert point_demo_env_at_port(env_file, 8001) is True

    assert env_file.read_text() == (
        "DJANGO_DEBUG=true\nDJANGO_SECRET_KEY=k\nSITE_URL=http://127.0.0.1:8001\n"
    )


def test_a_site_url_set_by_hand_is_kept(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    text = "DJANGO_DEBUG=true\nSITE_URL=https://evalsite.example.com\n"
    env_file.write_text(text)

    assert point_demo_env_at_port(env_file, 8001) is False
    assert env_file.read_text() == text
