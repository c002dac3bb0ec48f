"""Every setting read from the environment is checked at start: a malformed
value stops ``manage.py`` with one line naming the variable and the reason,
exit status 2, and nothing else; it never passes start-up to fail each
request or tick later. Values that may carry a password are never echoed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rest_framework.throttling import SimpleRateThrottle

from evalsite.env import THROTTLE_RATE
from tests.manage_cli import run_manage

ROOT = Path(__file__).resolve().parents[2]

# Read from the environment by the settings; a test sets only its own.
SETTINGS_PREFIXES = (
    "DJANGO_",
    "DATABASE_URL",
    "DB_",
    "CELERY_",
    "CACHE_",
    "LOG_",
    "API_",
    "KEEPALIVE_",
    "OPENAI_",
    "PRKEEPALIVE_",
    "EVALSITE_CODE_VERSION",
    "SITE_URL",
    "LOGIN_",
    "TRACE_",
    "OTLP_",
)


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_manage(
        *args,
        drop_prefixes=SETTINGS_PREFIXES,
        drop=("DJANGO_SETTINGS_MODULE",),
        **{"DJANGO_DEBUG": "true", "EVALSITE_ENV_FILE": "", **env},
    )


RATE = "must be <n>/<second, minute, hour or day> with n >= 1 (e.g. 1200/minute)"
URL = "must be an http:// or https:// URL with a host"

REFUSED = [
    ("API_KEY_THROTTLE_RATE", "5/fortnight", f"{RATE}, got '5/fortnight'"),
    ("API_KEY_THROTTLE_RATE", "abc", f"{RATE}, got 'abc'"),
    ("API_KEY_THROTTLE_RATE", "0/minute", f"{RATE}, got '0/minute'"),
    ("API_KEY_THROTTLE_RATE", "5/dogs", f"{RATE}, got '5/dogs'"),
    (
        "LOG_LEVEL",
        "LOUD",
        "must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, got 'LOUD'",
    ),
    ("LOG_FORMAT", "xml", "must be text or json, got 'xml'"),
    ("LOG_REPEAT_WINDOW_S", "soon", "must be an integer, got 'soon'"),
    (
        "KEEPALIVE_PROFILE",
        "huge",
        "must be one of minimal, balanced, rich, got 'huge'",
    ),
    (
        "KEEPALIVE_MODEL",
        "gpt",
        "must be one of baseline, openai, scripted, got 'gpt'",
    ),
    (
        "KEEPALIVE_SAMPLER",
        "hot",
        "must be one of low-variance, standard, creative, got 'hot'",
    ),
    ("OPENAI_BASE_URL", "localhost:11434", f"{URL}, got 'localhost:11434'"),
    ("OPENAI_BASE_URL", "http://:8080/v1", f"{URL}, got 'http://:8080/v1'"),
    ("PRKEEPALIVE_GITHUB_API_URL", "api.github.com", f"{URL}, got 'api.github.com'"),
    (
        "DJANGO_ALLOWED_HOSTS",
        "localhost,https://evalsite.example.com",
        "must list host names without scheme, port or path "
        "(e.g. evalsite.example.com,.example.org), got 'https://evalsite.example.com'",
    ),
    (
        "DJANGO_CSRF_TRUSTED_ORIGINS",
        "evalsite.example.com",
        "must list origins like https://evalsite.example.com "
        "(scheme, host and optional port), got 'evalsite.example.com'",
    ),
    (
        "EVALSITE_CODE_VERSION",
        "v1.2",
        "must be a git commit (7 to 64 lower-case hex digits, as `git rev-parse "
        "HEAD` prints), got 'v1.2'",
    ),
    ("DJANGO_HSTS_SECONDS", "-1", "must be >= 0, got -1"),
    (
        "LOGIN_CLIENT_ADDRESS_HEADER",
        "X-Forwarded-For: 1.2.3.4",
        "must be an HTTP header name (letters, digits and dashes, e.g. "
        "X-Forwarded-For), got 'X-Forwarded-For: 1.2.3.4'",
    ),
    ("LOGIN_MAX_FAILURES", "0", "must be >= 1, got 0"),
    (
        "SITE_URL",
        "localhost:8000",
        "must be an http:// or https:// URL with a host "
        "(e.g. http://127.0.0.1:8000), got 'localhost:8000'",
    ),
    ("API_MAX_BODY_BYTES", "ten", "must be an integer, got 'ten'"),
    ("TRACE_RETENTION_DAYS", "-1", "must be >= 0, got -1"),
    ("TRACE_MAX_BODY_BYTES", "100", "must be >= 1024, got 100"),
    ("DJANGO_DEBUG", "yes-please", "must be one of true/false/1/0, got 'yes-please'"),
]


@pytest.mark.parametrize(("name", "value", "reason"), REFUSED)
def test_a_malformed_setting_stops_start_up_with_one_line(
    name: str, value: str, reason: str
) -> None:
    result = manage("check", **{name: value})

    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"error: {name} {reason}\n"


SECRET_URLS = [
    (
        "DATABASE_URL",
        "postgress://evalsite:pw-Q7x2@db:5432/evalsite",
        "DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432"
        "/name; sqlite:///path for a file); its value is not shown",
    ),
    (
        "DATABASE_URL",
        "postgres://evalsite:pw-Q7x2@db:99999/evalsite",
        "DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432"
        "/name; sqlite:///path for a file); its value is not shown",
    ),
    (
        "CELERY_BROKER_URL",
        "amqp://guest:pw-Q7x2@rabbit//",
        "CELERY_BROKER_URL must be a redis://, rediss:// or filesystem:// URL "
        "(e.g. redis://host:6379/0); its value is not shown",
    ),
    (
        "CELERY_RESULT_BACKEND",
        "rpc://guest:pw-Q7x2@rabbit//",
        "CELERY_RESULT_BACKEND must be a redis://, rediss:// or file:// URL "
        "(e.g. redis://host:6379/0); its value is not shown",
    ),
    (
        "OTLP_EXPORT_HEADERS",
        "Authorization=Basic pw-Q7x2,pw-Q7x2",
        "OTLP_EXPORT_HEADERS: entry 2 has no '=' (write Name=value); "
        "its value is not shown",
    ),
    (
        "OTLP_EXPORT_ENDPOINT",
        "collector:4318/v1/logs?token=pw-Q7x2",
        "OTLP_EXPORT_ENDPOINT must be a http:// or https:// URL "
        "(e.g. http://127.0.0.1:4318/v1/logs); its value is not shown",
    ),
    (
        "CACHE_URL",
        "memcached://:pw-Q7x2@cache:11211",
        "CACHE_URL must be a redis:// or rediss:// URL (e.g. redis://host:6379/1); "
        "its value is not shown",
    ),
]


@pytest.mark.parametrize(("name", "value", "line"), SECRET_URLS)
def test_a_malformed_secret_url_is_named_never_shown(
    name: str, value: str, line: str
) -> None:
    result = manage("check", **{name: value})

    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"error: {line}\n"
    assert "pw-Q7x2" not in result.stderr


TOGETHER = [
    (
        {"CELERY_TASK_SOFT_TIME_LIMIT": "400"},
        "CELERY_TASK_SOFT_TIME_LIMIT must be less than CELERY_TASK_TIME_LIMIT, "
        "got 400 and 360",
    ),
    (
        {"KEEPALIVE_MODEL": "scripted"},
        "KEEPALIVE_SCRIPT must name the script file when KEEPALIVE_MODEL=scripted",
    ),
    (
        {"KEEPALIVE_MODEL": "openai", "OPENAI_MODEL": " "},
        "OPENAI_MODEL must name the model when KEEPALIVE_MODEL=openai",
    ),
]


@pytest.mark.parametrize(("env", "line"), TOGETHER)
def test_settings_that_do_not_work_together_stop_start_up(
    env: dict[str, str], line: str
) -> None:
    result = manage("check", **env)

    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"error: {line}\n"


def test_every_accepted_spelling_loads() -> None:
    probe = (
        "from django.conf import settings as s; print(s.API_KEY_THROTTLE_RATE, "
        "s.LOG_LEVEL, s.LOG_FORMAT, s.KEEPALIVE_PROFILE, s.KEEPALIVE_SAMPLER, "
        "s.ALLOWED_HOSTS, s.CSRF_TRUSTED_ORIGINS, s.OPENAI_BASE_URL, "
        "s.EVALSITE_CODE_VERSION, s.KEEPALIVE_MODEL, s.LOGIN_CLIENT_ADDRESS_HEADER)"
    )
    result = manage(
        "shell",
        "-c",
        probe,
        API_KEY_THROTTLE_RATE=" 30/hours ",
        LOG_LEVEL="warning",
        LOG_FORMAT="JSON",
        KEEPALIVE_PROFILE="Rich",
        KEEPALIVE_SAMPLER="creative",
        KEEPALIVE_MODEL="scripted",
        KEEPALIVE_SCRIPT="evals/suites/none.jsonl",
        DJANGO_ALLOWED_HOSTS="evalsite.example.com, .example.org,10.0.0.5,[::1],*",
        DJANGO_CSRF_TRUSTED_ORIGINS="https://evalsite.example.com:8443,http://*.x.org",
        OPENAI_BASE_URL="http://[::1]:11434/v1",
        EVALSITE_CODE_VERSION="0123abc",
        CACHE_URL="rediss://cache:6380/1",
        CELERY_BROKER_URL="filesystem://",
        DATABASE_URL="sqlite:////tmp/evalsite-settings-probe.sqlite3",
        LOG_REPEAT_WINDOW_S="",
        LOGIN_CLIENT_ADDRESS_HEADER="X-Real-IP",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        "30/hours WARNING json rich creative "
        "['evalsite.example.com', '.example.org', '10.0.0.5', '[::1]', '*'] "
        "['https://evalsite.example.com:8443', 'http://*.x.org'] "
        "http://[::1]:11434/v1 0123abc scripted X-Real-IP"
    )


@pytest.mark.parametrize(
    ("rate", "expected"),
    [
        ("7/s", (7, 1)),
        ("7/sec", (7, 1)),
        ("7/second", (7, 1)),
        ("7/seconds", (7, 1)),
        ("7/m", (7, 60)),
        ("7/min", (7, 60)),
        ("7/minute", (7, 60)),
        ("7/minutes", (7, 60)),
        ("7/h", (7, 3600)),
        ("7/hour", (7, 3600)),
        ("7/hours", (7, 3600)),
        ("7/d", (7, 86400)),
        ("7/day", (7, 86400)),
        ("7/days", (7, 86400)),
    ],
)
def test_every_rate_the_check_accepts_is_read_by_the_throttle(
    rate: str, expected: tuple[int, int]
) -> None:
    throttle = type("Throttle", (SimpleRateThrottle,), {"rate": rate})()

    assert THROTTLE_RATE.fullmatch(rate)
    assert (throttle.num_requests, throttle.duration) == expected


def test_the_example_env_file_starts_as_copied() -> None:
    """`cp .env.example .env` starts: every value it lists is accepted, and a
    `KEY=   # note` line is empty (it once made the note the secret key and a
    trusted origin)."""
    probe = (
        "from django.conf import settings as s; "
        "print(s.SECRET_KEY == s.DEV_SECRET_KEY, s.CSRF_TRUSTED_ORIGINS, "
        "repr(s.CACHE_URL), repr(s.LOGIN_CLIENT_ADDRESS_HEADER), s.ALLOWED_HOSTS)"
    )
    result = manage("shell", "-c", probe, EVALSITE_ENV_FILE=str(ROOT / ".env.example"))

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        "True [] '' '' ['localhost', '127.0.0.1', '[::1]']"
    )
