"""core.caches.remember: a bounded dict that keeps its newest entries."""

from __future__ import annotations

import sys
import threading

from core.caches import remember


def test_remember_keeps_the_newest_entries_up_to_the_size() -> None:
    cache: dict[int, str] = {}
    for n in range(5):
        assert remember(cache, n, str(n), size=3) == str(n)
    assert cache == {2: "2", 3: "3", 4: "4"}


def test_remember_replaces_a_key_without_dropping_others_below_the_size() -> None:
    cache = {1: "a"}
    remember(cache, 1, "b", size=3)
    assert cache == {1: "b"}


def test_remember_from_many_threads_never_raises_and_stays_bounded() -> None:
    cache: dict[tuple[int, int], int] = {}
    errors: list[BaseException] = []

    def fill(thread: int) -> None:
        try:
            for n in range(5000):
                remember(cache, (thread, n), n, size=8)
        except BaseException as error:  # noqa: BLE001 - the test reports it
            errors.append(error)

    workers = [threading.Thread(target=fill, args=(t,)) for t in range(8)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    assert len(cache) <= 8 + len(workers)
