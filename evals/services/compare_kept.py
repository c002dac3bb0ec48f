"""The comparisons of two completed runs made last, kept in memory: each
page of one comparison (filters, pagination, flip order, downloads) is its
own request, and a completed run's case results no longer change. A kept
comparison is found by everything of both runs it reads and their case
rows' count and newest pk; at most ``KEPT`` are kept, the oldest dropped."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from evals.models import Run

KEPT = 2

_RECENT: OrderedDict[Hashable, Any] = OrderedDict()
_LOCK = threading.Lock()


def recent_comparisons_clear() -> None:
    """Forget the kept comparisons (the next view builds anew)."""
    with _LOCK:
        _RECENT.clear()


def kept_or_built[T](key: Hashable, build: Callable[[], T]) -> T:
    """The comparison kept under ``key``, else ``build()``, kept."""
    with _LOCK:
        if key in _RECENT:
            _RECENT.move_to_end(key)
            found: T = _RECENT[key]
            return found
    built = build()
    with _LOCK:
        _RECENT[key] = built
        while len(_RECENT) > KEPT:
            _RECENT.popitem(last=False)
    return built


def run_key(run: Run, cases: tuple[int, int]) -> tuple[object, ...]:
    """Everything of a run the comparison reads (a queryset ``update`` does
    not move ``updated_at``), and its case rows' count and newest pk."""
    return (
        run.pk,
        run.run_id,
        run.benchmark.benchmark_id,
        run.created_at,
        run.updated_at,
        run.status,
        run.source,
        run.started_at,
        run.completed_at,
        (run.total_cases, run.passed_cases, run.failed_cases),
        run.git_ref,
        run.suite_sha256,
        json.dumps(run.metrics, sort_keys=True, default=str),
        json.dumps(run.config, sort_keys=True, default=str),
        cases,
    )
