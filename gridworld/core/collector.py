"""Pause Python's cycle collector while episodes build their receipts.

A receipt is a tree of dicts and lists (no reference cycles): reference
counting frees it. While a batch's receipts pile up, though, the cycle
collector keeps re-traversing all of them and finds nothing, which cost a
quarter to a third of a batch's time. ``collector_paused()`` turns it off
for the duration and back on afterwards. Pauses nest and may overlap across
threads: they are counted under a lock, and the collector is re-enabled (if
it was enabled when the first began) when the last one ends. Results never
depend on it; only the time the collector takes does.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_reenable = False


@contextmanager
def collector_paused() -> Iterator[None]:
    global _depth, _reenable
    with _lock:
        if _depth == 0:
            _reenable = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _reenable:
                gc.enable()
