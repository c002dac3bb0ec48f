"""Strict readers of environment variables, for ``evalsite.settings``.

Every reader refuses a malformed value with ``ImproperlyConfigured`` naming
the variable, rather than silently falling back to a default; ``manage.py``
prints that as one line (``error: <message>``, exit status 2). An unset or
empty variable means the default. Secrets (``env_secret``) can come from a
file named by ``NAME_FILE`` and no message here ever echoes their value.
"""

from __future__ import annotations

import os
from pathlib import Path

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
    value = os.environ.get(name, default).lower()
    if value not in choices:
        raise ImproperlyConfigured(
            f"{name} must be {' or '.join(choices)}, got {value!r}"
        )
    return value


def env_list(name: str, default: str = "") -> list[str]:
    raw = os.environ.get(name, default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_secret(name: str) -> str:
    """``NAME_FILE`` (a path whose content is the secret) wins over ``NAME``."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            return Path(path).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE cannot be read: {exc}") from None
    return os.environ.get(name, "")


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
    """A ``redis://`` URL read like a secret; never echoed (it may carry a
    password)."""
    url = env_secret(name)
    if url and not url.startswith("redis://"):
        raise ImproperlyConfigured(f"{name} must be a redis:// URL")
    return url
