"""Small bounded caches: a plain dict that keeps its newest entries.

Used for parses worth reusing (a suite's bytes, a script's adapter, a
frame's JSON text) where the key already says everything the value depends
on, so an entry is never stale, only dropped when the cache is full.
"""

from __future__ import annotations


def remember[K, V](cache: dict[K, V], key: K, value: V, *, size: int) -> V:
    """Put ``value`` under ``key``, first dropping the oldest entries until
    fewer than ``size`` remain; returns ``value``.

    Safe when threads share ``cache``: another thread may drop the same
    oldest entry first, or change the dict while its oldest key is read.
    """
    while len(cache) >= size:
        try:
            cache.pop(next(iter(cache)), None)
        except (StopIteration, RuntimeError):
            break
    cache[key] = value
    return value
