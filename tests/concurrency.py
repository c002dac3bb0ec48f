"""Callers released at the same moment, each on its own database connection
(the concurrency tests run on PostgreSQL, whose row locks they exercise)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


def run_together(*workers: Callable[[], Any]) -> list[Any]:
    """Run ``workers`` in threads released at once by a barrier; each one's
    result or the exception it raised, in order. Each thread closes its own
    connection at the end."""
    results: list[Any] = [None] * len(workers)
    barrier = threading.Barrier(len(workers))

    def run(index: int) -> None:
        try:
            barrier.wait()
            results[index] = workers[index]()
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results
