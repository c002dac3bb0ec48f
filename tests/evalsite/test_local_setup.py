"""After `make demo`, commands work in a new shell; setup errors are one line."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evalsite.envfile import (
    DEMO_FLAGS,
    EnvFileError,
    load_env_file,
    parse_env_file,
    write_demo_env,
)
from tests.manage_cli import run_manage

ROOT = Path(__file__).resolve().parents[2]


def new_shell(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python manage.py ...`` with none of the project's variables set, as a
    new terminal has (the caller adds what the case needs)."""
    return run_manage(
        *args,
        drop_prefixes=("DJANGO_", "DATABASE_URL", "CELERY_", "LOG_", "EVAL"),
        drop=DEMO_FLAGS,
        **env,
    )


def test_env_file_parsing() -> None:
    text = (
        "# comment\n\nA=1\nexport B='two words'\nC=x   # trailing comment\n"
        'D="#kept"\nE=\n'
    )
    assert parse_env_file(text) == {
        "A": "1",
        "B": "two words",
        "C": "x",
        "D": "#kept",
        "E": "",
    }
    with pytest.raises(EnvFileError, match=r"^\.env: line 2: expected KEY=VALUE$"):
        parse_env_file("A=1\nnot a pair\n")


def test_env_file_never_overrides_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("EVALSITE_T1=from-file\nEVALSITE_T2=from-file\n")
    monkeypatch.setenv("EVALSITE_T1", "from-env")
    monkeypatch.delenv("EVALSITE_T2", raising=False)
    assert load_env_file(env_file) == ["EVALSITE_T2"]
    assert os.environ["EVALSITE_T1"] == "from-env"
    assert os.environ["EVALSITE_T2"] == "from-file"
    monkeypatch.delenv("EVALSITE_T2")
    assert load_env_file(tmp_path / "absent") == []


def test_demo_env_is_written_once(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    assert write_demo_env(env_file) is True
    first = env_file.read_text()
    values = parse_env_file(first)
    assert values["DJANGO_DEBUG"] == "true"
    assert len(values["DJANGO_SECRET_KEY"]) >= 50
    assert all(values[flag] == "true" for flag in DEMO_FLAGS)
    assert write_demo_env(env_file) is False
    assert env_file.read_text() == first  # the secret stays the same


# Slow by design: manage.py runs in a new shell's child process after the demo.
def test_manage_py_works_in_a_new_shell_after_demo(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    write_demo_env(env_file)
    result = new_shell(
        "check", EVALSITE_ENV_FILE=str(env_file), EVALSITE_VAR_DIR=str(tmp_path)
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_missing_secret_is_one_clear_line_and_production_refuses(
    tmp_path: Path,
) -> None:
    result = new_shell("check", EVALSITE_ENV_FILE=str(tmp_path / "none"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        "error: DJANGO_SECRET_KEY (or DJANGO_SECRET_KEY_FILE) must be set when "
        "DJANGO_DEBUG is off"
    )


def test_debug_off_refuses_the_development_placeholder(tmp_path: Path) -> None:
    result = new_shell(
        "check",
        EVALSITE_ENV_FILE=str(tmp_path / "none"),
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY="dev-only-insecure-key-never-use-in-production",
    )
    assert result.returncode == 2
    assert result.stderr == (
        "error: DJANGO_SECRET_KEY is the development placeholder; set a real "
        "secret when DJANGO_DEBUG is off\n"
    )


def test_a_bad_env_file_line_is_one_clear_line(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("DJANGO_DEBUG=true\noops\n")
    result = new_shell("check", EVALSITE_ENV_FILE=str(env_file))
    assert result.returncode == 2
    assert result.stderr == f"error: {env_file}: line 2: expected KEY=VALUE\n"


def test_demo_refuses_a_taken_port_before_starting_anything() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(CommandError) as refused:
            call_command("demo", addr=f"127.0.0.1:{port}")
    assert str(refused.value) == (
        f"port {port} is already in use on 127.0.0.1: stop what is using it, or "
        f"choose another port: make demo PORT={port + 1}"
    )


def test_make_demo_takes_the_port_and_make_test_prints_skip_reasons() -> None:
    dry = subprocess.run(
        ["make", "-n", "demo", "PORT=8001"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert re.search(r"manage\.py demo --addr 127\.0\.0\.1:8001$", dry, re.M)
    assert "-m evalsite.envfile --demo .env" in dry
    tests = subprocess.run(
        ["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "mkdir -p var" in tests
    assert re.search(r"bin/pytest -rs\b", tests)


def test_fresh_clone_test_settings_create_var(tmp_path: Path) -> None:
    """`make test` on a fresh clone: the test settings create the var/ folder
    the SQLite test database lives in."""
    var = tmp_path / "fresh" / "var"
    code = "import evalsite.settings_test as s; print(s.VAR_DIR.is_dir())"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "EVALSITE_VAR_DIR": str(var)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "True"


# Slow by design: a throwaway interpreter without Django runs manage.py.
def test_manage_py_run_by_a_python_without_django_runs_in_the_project_venv(
    tmp_path: Path,
) -> None:
    """A new shell's ``python`` is often not the project's: ``python manage.py``
    then runs under ``.venv`` instead of failing on ``import django``."""
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip("needs the project's .venv (make venv)")
    base_python = getattr(sys, "_base_executable", "")
    lacks_django = subprocess.run(
        [base_python, "-c", "import django"], capture_output=True, check=False
    )
    if not base_python or lacks_django.returncode == 0:
        pytest.skip("needs an interpreter without Django beside the .venv")
    env_file = tmp_path / ".env"
    write_demo_env(env_file)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "VIRTUAL_ENV", "PYTHON"))
    }
    result = subprocess.run(
        [base_python, "manage.py", "check"],
        cwd=ROOT,
        env={
            **env,
            "EVALSITE_ENV_FILE": str(env_file),
            "EVALSITE_VAR_DIR": str(tmp_path),
        },
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_make_bench_runs_every_benchmark_and_names_those_that_missed(
    tmp_path: Path,
) -> None:
    """One benchmark missing its target (exit 1) no longer stops the others;
    the run ends non-zero naming it."""
    missed = tmp_path / "a_missed.py"
    missed.write_text("print('a ran'); raise SystemExit(1)\n")
    met = tmp_path / "b_met.py"
    met.write_text("print('b ran')\n")
    result = subprocess.run(
        # --no-print-directory: under `make test` this make is a sub-make,
        # which would otherwise add "Entering directory" lines.
        ["make", "--no-print-directory", "-o", ".venv/.installed", "bench"]
        + [f"BENCHES={missed} {met}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode != 0
    assert "a ran" in result.stdout
    assert "b ran" in result.stdout
    assert result.stdout.rstrip().endswith(
        f"exited non-zero (a target missed, or an error): {missed}"
    )
