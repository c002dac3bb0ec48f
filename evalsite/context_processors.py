from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse

NAVIGATION = (
    ("Stream", "stream:index"),
    ("Evals", "evals:index"),
    ("Benchmarks", "evals:benchmark-list"),
    ("Baselines", "evals:baseline-list"),
    ("Compare", "evals:compare"),
    ("Trends", "evals:trends"),
    ("Gridworld", "gridworld:index"),
    ("PR keepalive", "prkeepalive:index"),
    ("Traces", "traces:span-list"),
    ("Reviews", "reviews:queue-list"),
    ("Search", "search:search"),
    ("Agents", "stream:agents-manage"),
    ("Audit log", "accounts:audit-log"),
)


def nav_current(path: str, urls: list[str]) -> str:
    """The nav entry ``path`` belongs to: the longest entry URL that is the
    path itself, or a folder (ending in "/") the path is under; "" for none.
    /reviews/queues/3/ is in Reviews (/reviews/), /evals/compare in Compare."""
    return max(
        (
            url
            for url in urls
            if path == url or (url.endswith("/") and path.startswith(url))
        ),
        key=len,
        default="",
    )


def navigation(request: HttpRequest) -> dict[str, Any]:
    urls = [reverse(name) for _, name in NAVIGATION]
    return {
        "navigation": NAVIGATION,
        "nav_current": nav_current(request.path, urls),
    }
