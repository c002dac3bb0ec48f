"""Stored receipts and offline verification of uploaded ones."""

from __future__ import annotations

import json
import logging
import zlib
from typing import Any

from core.errors import SchemaInvalid, SchemaProblem
from gridworld.core.episode import SCHEMA_VERSION
from gridworld.core.replay import Verification, config_from_receipt, replay_verify
from gridworld.core.types import GridworldError
from gridworld.models import Episode

logger = logging.getLogger(__name__)


def episode_receipt(episode: Episode) -> dict[str, Any]:
    """The episode's run receipt, as it was stored."""
    result: dict[str, Any] = json.loads(zlib.decompress(bytes(episode.receipt_gz)))
    return result


def episode_receipt_bytes(episode: Episode) -> bytes:
    """The canonical JSON bytes of the receipt (what ``receipt_digest`` hashes)."""
    return zlib.decompress(bytes(episode.receipt_gz))


def receipt_check(document: Any) -> None:
    """Refuse a receipt whose config cannot be replayed at all (an action
    outside N, S, E, W, Stay, a missing map...): that is bad input, not a
    divergence. Raises ``SchemaInvalid`` naming the field and the reason."""
    if not isinstance(document, dict) or document.get("schema_version") != (
        SCHEMA_VERSION
    ):
        return
    try:
        config_from_receipt(document)
    except GridworldError as error:
        raise SchemaInvalid(
            "the receipt's config cannot be replayed",
            problems=[SchemaProblem(error.field, "invalid", error.message)],
        ) from error


def receipt_verify(document: Any, *, source: str = "upload") -> Verification:
    """Replay ``document`` and log the verdict.

    ``receipt_check`` first: an unusable config raises ``SchemaInvalid`` and
    is not logged as a verification. Logs ``[Gridworld] receipt_verified
    run_id=<ID> verified=<true|false> steps=<N>`` and, on a divergence,
    ``step=<S> field=<F>``.
    """
    receipt_check(document)
    verification = replay_verify(document)
    divergence = verification.divergence
    if divergence is None:
        logger.info(
            "[Gridworld] receipt_verified run_id=%s verified=true steps=%s source=%s",
            verification.run_id,
            verification.steps_checked,
            source,
            extra={"run_id": verification.run_id},
        )
    else:
        logger.warning(
            "[Gridworld] receipt_verified run_id=%s verified=false steps=%s "
            "source=%s step=%s field=%s",
            verification.run_id,
            verification.steps_checked,
            source,
            divergence.step,
            divergence.field,
            extra={"run_id": verification.run_id},
        )
    return verification
