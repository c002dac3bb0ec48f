"""Pause Python's cycle collector while episodes build their receipts.

A receipt is a tree of dicts and lists (no reference cycles): reference
counting frees it. While a batch's receipts pile up, though, the cycle
collector keeps re-traversing all of them and finds nothing, which cost a
quarter to a third of a batch's time. ``collector_paused()`` turns it off
for the duration and back on afterwards. Pauses nest and may overlap across
threads: they are counted under a lock, and the collector is re-enabled (if
it was enabled when the first began) when the last one ends.

Re-enabled as is, the collector's first young-generation pass would traverse
everything made during the pause (a 400-episode batch: about 200,000 lists
and dicts, 12-17% of the batch's time). So when the last pause ends, what
it made is moved to the oldest generation without a pass
(``gc.freeze()`` then ``gc.unfreeze()``: two list splices), where a full
collection still examines whatever of it is alive then. This is skipped when
something holds objects frozen (a worker freezes its startup heap), since
``gc.unfreeze()`` would release those too: the pass then runs as before.
CPython 3.12 itself starts with a few hundred of its own objects frozen; the
count seen when this module is first imported is taken as the interpreter's
own (the app imports it as it starts, before a worker freezes anything), and
no more than that does not stop the shortcut (releasing them only lets full
collections examine them again).
Results never depend on any of this; only the time the collector takes does.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_reenable = False
_interpreter_frozen = gc.get_freeze_count()


def _promote_to_oldest() -> None:
    """Move every tracked object to the oldest generation, traversing none."""
    if gc.get_freeze_count() <= _interpreter_frozen:
        gc.freeze()
        gc.unfreeze()


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
                _promote_to_oldest()
                gc.enable()
