"""Strict readers of environment variables, for ``evalsite.settings``.

Every reader refuses a malformed value with ``ImproperlyConfigured`` naming
the variable, rather than silently falling back to a default; ``manage.py``
prints that as one line (``error: <message>``, exit status 2). An unset or
empty variable means the default. Secrets (``env_secret``) can come from a
file named by ``NAME_FILE`` and no message here ever echoes their value.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from evalsite.envfile import EnvFileError, load_env_file

# The checkout: relative paths in variables are read from here.
BASE_DIR = Path(__file__).resolve().parent.parent


def load_local_env() -> None:
    """Read the local ``.env`` (written once by ``make demo``) into the
    environment; real variables win, and an empty ``EVALSITE_ENV_FILE``
    turns the file off (the test settings do)."""
    name = os.environ.get("EVALSITE_ENV_FILE", ".env")
    if not name:
        return
    try:
        load_env_file(Path(name) if Path(name).is_absolute() else BASE_DIR / name)
    except EnvFileError as exc:
        raise ImproperlyConfigured(str(exc)) from None


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    raise ImproperlyConfigured(f"{name} must be one of true/false/1/0, got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {value}")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of ``choices``, compared in lower case."""
    raw = os.environ.get(name) or default
    value = raw.strip().lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be {_one_of(choices)}, got {raw!r}")
    return value


def _either(words: tuple[str, ...]) -> str:
    """``a or b``, ``a, b or c``."""
    if len(words) < 3:
        return " or ".join(words)
    return f"{', '.join(words[:-1])} or {words[-1]}"


def _one_of(choices: tuple[str, ...]) -> str:
    """``a or b``, ``one of a, b, c``."""
    return _either(choices) if len(choices) < 3 else f"one of {', '.join(choices)}"


def env_list(name: str, default: str = "") -> list[str]:
    raw = os.environ.get(name, default)
    return [item.strip() for item in raw.split(",") if item.strip()]


# A host name, a ``.domain`` (the domain and its subdomains), ``*`` or an
# IP address (IPv6 in brackets): what Django matches a request's Host with.
_HOST_PATTERN = re.compile(
    r"\*|\.?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\]"
)


def env_hosts(name: str, default: str) -> list[str]:
    """Comma-separated host names (no scheme, port or path)."""
    hosts = env_list(name, default)
    for host in hosts:
        if not _HOST_PATTERN.fullmatch(host):
            raise ImproperlyConfigured(
                f"{name} must list host names without scheme, port or path "
                f"(e.g. evalsite.example.com,.example.org), got {host!r}"
            )
    return hosts


def env_origins(name: str) -> list[str]:
    """Comma-separated origins: ``http(s)://host[:port]``, no path."""
    origins = env_list(name)
    for origin in origins:
        if _url_problem(origin, ("http", "https")) or urlsplit(origin).path:
            raise ImproperlyConfigured(
                f"{name} must list origins like https://evalsite.example.com "
                f"(scheme, host and optional port), got {origin!r}"
            )
    return origins


def _url_problem(
    value: str, schemes: tuple[str, ...], *, needs_host: bool = True
) -> bool:
    """True unless ``value`` is a URL with one of ``schemes``, no white space,
    a port in range and (``needs_host``) a host."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (raises ValueError on a port out of range)
    except ValueError:
        return True
    return (
        parts.scheme not in schemes
        or (needs_host and not parts.hostname)
        or any(char.isspace() for char in value)
    )


def env_url(name: str, default: str) -> str:
    """An ``http://`` or ``https://`` URL with a host."""
    raw = os.environ.get(name) or default
    if _url_problem(raw, ("http", "https")):
        raise ImproperlyConfigured(
            f"{name} must be an http:// or https:// URL with a host, got {raw!r}"
        )
    return raw


# Django REST framework reads the period by its first letter; only these
# spellings are taken, so a typo is refused here rather than by every request.
THROTTLE_RATE = re.compile(
    r"([1-9][0-9]*)/(s|sec|second|seconds|m|min|minute|minutes|h|hour|hours"
    r"|d|day|days)"
)


def env_rate(name: str, default: str) -> str:
    """A request rate, ``<n>/<second, minute, hour or day>`` (``1200/minute``)."""
    raw = os.environ.get(name) or default
    if not THROTTLE_RATE.fullmatch(raw.strip()):
        raise ImproperlyConfigured(
            f"{name} must be <n>/<second, minute, hour or day> with n >= 1 "
            f"(e.g. 1200/minute), got {raw!r}"
        )
    return raw.strip()


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def env_log_level(name: str, default: str) -> str:
    """A ``logging`` level name, upper-cased."""
    raw = os.environ.get(name) or default
    value = raw.strip().upper()
    if value not in LOG_LEVELS:
        raise ImproperlyConfigured(
            f"{name} must be one of {', '.join(LOG_LEVELS)}, got {raw!r}"
        )
    return value


_HEADER = re.compile(r"[A-Za-z][A-Za-z0-9-]*")


def env_header(name: str) -> str:
    """An HTTP header name (``X-Forwarded-For``), or empty."""
    raw = os.environ.get(name, "")
    if raw.strip() and not _HEADER.fullmatch(raw.strip()):
        raise ImproperlyConfigured(
            f"{name} must be an HTTP header name (letters, digits and dashes, "
            f"e.g. X-Forwarded-For), got {raw!r}"
        )
    return raw.strip()


_COMMIT = re.compile(r"[0-9a-f]{7,64}")


def env_commit(name: str) -> str:
    """A git commit id (7 to 64 lower-case hex digits), or empty."""
    raw = os.environ.get(name, "")
    if raw.strip() and not _COMMIT.fullmatch(raw.strip()):
        raise ImproperlyConfigured(
            f"{name} must be a git commit (7 to 64 lower-case hex digits, "
            f"as `git rev-parse HEAD` prints), got {raw!r}"
        )
    return raw.strip()


def env_secret_url(name: str, schemes: tuple[str, ...], example: str) -> str:
    """A URL read like a secret (it may carry a password), with one of
    ``schemes``; the message names the variable, never the value."""
    url = env_secret(name)
    if url and _url_problem(url, schemes, needs_host=False):
        raise ImproperlyConfigured(
            f"{name} must be a {_either(tuple(s + '://' for s in schemes))} URL "
            f"(e.g. {example}); its value is not shown"
        )
    return url


def refuse(problem: str | None) -> None:
    """Stop start-up with ``problem``, when there is one (settings that are
    valid alone but not together)."""
    if problem:
        raise ImproperlyConfigured(problem)


def env_secret(name: str) -> str:
    """``NAME_FILE`` (a path whose content is the secret) wins over ``NAME``."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            return Path(path).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE cannot be read: {exc}") from None
    return os.environ.get(name, "")


def env_var_dir() -> Path:
    """Where the embedded database, broker and stores live (``EVALSITE_VAR_DIR``)."""
    return env_path("EVALSITE_VAR_DIR", BASE_DIR / "var")


def env_path(name: str, default: Path) -> Path:
    """A path; a relative one is taken from the checkout (``BASE_DIR``)."""
    raw = os.environ.get(name)
    path = Path(raw) if raw else default
    return path if path.is_absolute() else BASE_DIR / path


def env_secret_key(*, debug: bool, placeholder: str) -> str:
    """``DJANGO_SECRET_KEY`` (or ``_FILE``): required with DEBUG off, where the
    development ``placeholder`` is refused too; with DEBUG on it defaults to
    the placeholder."""
    key = env_secret("DJANGO_SECRET_KEY")
    if not key:
        if not debug:
            raise ImproperlyConfigured(
                "DJANGO_SECRET_KEY (or DJANGO_SECRET_KEY_FILE) must be set when "
                "DJANGO_DEBUG is off (for local use, `make demo` writes a .env with "
                'both). Generate one with: python -c "import secrets; '
                'print(secrets.token_urlsafe(50))"'
            )
        return placeholder
    if not debug and key == placeholder:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is the development placeholder; set a real secret when "
            "DJANGO_DEBUG is off"
        )
    return key


def env_redis_url(name: str) -> str:
    """A ``redis://`` (or ``rediss://``) URL read like a secret; never echoed
    (it may carry a password)."""
    return env_secret_url(name, ("redis", "rediss"), "redis://host:6379/1")
