from __future__ import annotations

from typing import Any

from django.http import HttpRequest

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


def navigation(request: HttpRequest) -> dict[str, Any]:
    return {"navigation": NAVIGATION}
