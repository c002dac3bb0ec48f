"""stream.core.dedup: content hashes and the broadcast rule for low-novelty
thoughts (no database)."""

from __future__ import annotations

import hashlib

import pytest

from stream.core.dedup import (
    LOW_NOVELTY_BROADCAST_EVERY,
    NoveltyDecision,
    content_hash,
    decide_novelty,
)


def test_content_hash_ignores_case_and_runs_of_whitespace() -> None:
    expected = hashlib.sha256(b"collect oak logs").hexdigest()[:16]
    assert content_hash("collect oak logs") == expected
    assert content_hash("  Collect\n\toak   LOGS ") == expected
    assert content_hash("collect oak log") != expected


def test_a_new_thought_keeps_its_novelty_and_is_broadcast() -> None:
    decision = decide_novelty(
        is_duplicate=False, has_goal=False, low_novelty_seen=3, base_novelty="medium"
    )
    assert decision == NoveltyDecision(novelty="medium", broadcast=True, fallback=False)


def test_a_duplicate_with_a_goal_is_low_novelty_and_still_broadcast() -> None:
    decision = decide_novelty(is_duplicate=True, has_goal=True, low_novelty_seen=0)
    assert decision == NoveltyDecision(novelty="low", broadcast=True, fallback=True)


@pytest.mark.parametrize("seen", range(2 * LOW_NOVELTY_BROADCAST_EVERY))
def test_a_goal_less_duplicate_is_broadcast_every_fifth_time(seen: int) -> None:
    decision = decide_novelty(is_duplicate=True, has_goal=False, low_novelty_seen=seen)
    fifth = seen in (4, 9)
    assert decision == NoveltyDecision(novelty="low", broadcast=fifth, fallback=fifth)
