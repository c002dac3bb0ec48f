"""Content dedup and the broadcast rule for low-novelty thoughts (the agency contract
§4.1).

A thought whose normalised content equals a recent one is low novelty: it is
recorded but not eligible; if it carries a goal it is still broadcast, else
only every fifth such thought is broadcast, marked ``fallback``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

_WS = re.compile(r"\s+")
LOW_NOVELTY_BROADCAST_EVERY = 5


def content_hash(text: str) -> str:
    """sha256 of the lowercased, whitespace-collapsed text (first 16 hex)."""
    normalised = _WS.sub(" ", text.strip().lower())
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class NoveltyDecision:
    novelty: str  # high | medium | low
    broadcast: bool
    fallback: bool


def decide_novelty(
    *,
    is_duplicate: bool,
    has_goal: bool,
    low_novelty_seen: int,
    base_novelty: str = "high",
) -> NoveltyDecision:
    """``low_novelty_seen`` counts earlier low-novelty thoughts of this agent."""
    if not is_duplicate:
        return NoveltyDecision(novelty=base_novelty, broadcast=True, fallback=False)
    if has_goal:
        return NoveltyDecision(novelty="low", broadcast=True, fallback=True)
    broadcast = (low_novelty_seen + 1) % LOW_NOVELTY_BROADCAST_EVERY == 0
    return NoveltyDecision(novelty="low", broadcast=broadcast, fallback=broadcast)
