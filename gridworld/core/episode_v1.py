"""Schema version 1 receipts, replayed so that stored ones keep verifying.

A version 1 step receipt holds ``gridworld_state_hash`` (the state hash after
the step) between ``goal`` and ``kernel_state_hash``, and its chain preimage
writes every field out (``step_preimage`` of a step with that field). The
episode itself is the same: ``EpisodeV1`` plays the production step and
rewrites each step receipt into version 1 (its own hash chain), so the two
versions never differ in anything but those two points. It is slower than
the production step, which writes version 2; only replay uses it.
"""

from __future__ import annotations

from typing import Any

from gridworld.core.episode import (
    Episode,
    EpisodeConfig,
    sha256_text,
    step_preimage,
)
from gridworld.core.fastpath import StateHasher


class EpisodeV1(Episode):
    """``Episode`` writing schema version 1 receipts."""

    schema_version = 1

    def __init__(self, config: EpisodeConfig) -> None:
        super().__init__(config)
        self.hasher = StateHasher(self.grid_text, config.seed)

    def step(self, requested: str | None = None) -> dict[str, Any]:
        # ``self.prev`` holds the version 1 chain: the production step puts
        # it in ``prev_receipt_hash`` and moves it on, and this step puts it
        # back to the version 1 receipt hash.
        body = super().step(requested)
        x, y = body["position"]
        gx, gy = body["goal"]
        state_digest = self.hasher.hexdigest((x, y), (gx, gy), body["step"] + 1)
        step: dict[str, Any] = {}
        for key, value in body.items():
            if key == "kernel_state_hash":
                step["gridworld_state_hash"] = state_digest
            if key != "receipt_hash":
                step[key] = value
        self.prev = step["receipt_hash"] = sha256_text(step_preimage(step))
        self.steps[-1] = step
        return step
