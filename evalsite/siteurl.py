"""The site's base URL (``SITE_URL``): where the pages are served, for the
links that commands print.

``make demo PORT=N`` writes ``SITE_URL=http://127.0.0.1:N`` to ``.env``
(``evalsite.envfile``), so ``eval_run`` and ``gridworld_run`` typed later in
another shell print links to the port the demo serves on. A deployment sets
its public address (``https://evalsite.example.com``).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

DEFAULT_SITE_URL = "http://127.0.0.1:8000"


def site_url_problem(value: str) -> str:
    """Why ``value`` is not a base URL (empty when it is one)."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return "must be an http:// or https:// URL with a host"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http:// or https:// URL with a host"
    if parts.query or parts.fragment or parts.username or parts.password:
        return "must be a scheme, host, optional port and path only"
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        return "must have a port between 1 and 65535 when it names one"
    return ""


def env_site_url(name: str = "SITE_URL", default: str = DEFAULT_SITE_URL) -> str:
    """The variable's URL without a trailing slash; a malformed one is refused
    with ``ImproperlyConfigured`` naming the variable."""
    raw = os.environ.get(name) or default
    problem = site_url_problem(raw.strip())
    if problem:
        raise ImproperlyConfigured(
            f"{name} {problem} (e.g. {DEFAULT_SITE_URL}), got {raw!r}"
        )
    return raw.strip().rstrip("/")


def site_link(path: str, base_url: str | None = None) -> str:
    """``path`` (a page's absolute path) on ``base_url``, or on ``SITE_URL``."""
    base = base_url if base_url is not None else settings.SITE_URL
    return f"{base.rstrip('/')}{path}"
