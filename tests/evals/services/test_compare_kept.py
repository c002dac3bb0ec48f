"""The kept comparisons of completed runs: found again by the same key,
built anew for another, the oldest dropped beyond ``KEPT``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evals.services.compare_kept import KEPT, kept_or_built, recent_comparisons_clear


@pytest.fixture(autouse=True)
def nothing_kept() -> Iterator[None]:
    recent_comparisons_clear()
    yield
    recent_comparisons_clear()


def test_same_key_is_built_once() -> None:
    built: list[str] = []

    def build() -> str:
        built.append("x")
        return f"comparison {len(built)}"

    first = kept_or_built(("a", "b"), build)
    again = kept_or_built(("a", "b"), build)

    assert first == again == "comparison 1"
    assert built == ["x"]


def test_the_oldest_is_dropped_beyond_kept() -> None:
    for index in range(KEPT + 1):
        kept_or_built(index, lambda index=index: index)

    rebuilt = kept_or_built(0, lambda: "rebuilt")
    newest = kept_or_built(KEPT, lambda: "not rebuilt")

    assert rebuilt == "rebuilt"
    assert newest == KEPT


def test_clearing_forgets_every_comparison() -> None:
    kept_or_built("key", lambda: "old")

    recent_comparisons_clear()

    assert kept_or_built("key", lambda: "new") == "new"
