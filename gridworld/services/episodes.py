"""Stored receipts and offline verification of uploaded ones."""

from __future__ import annotations

import hashlib
import json
import logging
import zlib
from dataclasses import dataclass
from typing import Any

from core.errors import Conflict, SchemaInvalid, SchemaProblem
from gridworld.core.episode import SCHEMA_VERSIONS
from gridworld.core.receipt_json import read_receipt_json, receipt_value_problems
from gridworld.core.replay import Verification, config_from_receipt, replay_verify
from gridworld.core.types import GridworldError
from gridworld.models import Episode

logger = logging.getLogger(__name__)

INTACT, ALTERED, DAMAGED = "intact", "altered", "damaged"


@dataclass(frozen=True, slots=True)
class StoredReceipt:
    """An episode's receipt as it is stored now, checked against the digest
    recorded when the episode was stored.

    ``status``: ``intact`` (the bytes hash to the recorded digest),
    ``altered`` (they changed since, but still read as a JSON object) or
    ``damaged`` (they no longer decompress or read as one; ``problem`` says
    why and ``document`` is ``None``). ``digest`` is the sha256 of the bytes
    as stored now (``None`` when they do not decompress).
    """

    status: str
    data: bytes | None
    document: dict[str, Any] | None
    digest: str | None
    stored_digest: str
    problem: str = ""


def episode_receipt(episode: Episode) -> dict[str, Any]:
    """The episode's run receipt, as it was stored (no check: see
    ``stored_receipt``)."""
    result: dict[str, Any] = json.loads(zlib.decompress(bytes(episode.receipt_gz)))
    return result


def episode_receipt_bytes(episode: Episode) -> bytes:
    """The canonical JSON bytes of the receipt (what ``receipt_digest`` hashes)."""
    return zlib.decompress(bytes(episode.receipt_gz))


def stored_receipt(episode: Episode) -> StoredReceipt:
    """``episode``'s receipt read from storage and checked (``StoredReceipt``);
    an altered or damaged one is logged as ``[Gridworld] stored_receipt_<status>``."""
    stored = _read_stored(episode)
    if stored.status != INTACT:
        logger.warning(
            "[Gridworld] stored_receipt_%s batch=%s episode=%s stored_digest=%s "
            "digest=%s problem=%s",
            stored.status,
            episode.batch_id,
            episode.index,
            stored.stored_digest,
            stored.digest,
            stored.problem or "-",
        )
    return stored


class ReceiptDamaged(Conflict):
    """The stored bytes of a receipt no longer read as one (the API's 409)."""

    code = "receipt_damaged"


def receipt_download(episode: Episode) -> StoredReceipt:
    """``stored_receipt`` for handing the bytes out: a damaged receipt (its
    bytes do not read as one) raises ``ReceiptDamaged``, with the digest
    recorded and the digest of the bytes as stored now."""
    stored = stored_receipt(episode)
    if stored.status == DAMAGED or stored.data is None:
        raise ReceiptDamaged(
            f"stored receipt is damaged: {stored.problem}",
            details={"storedDigest": stored.stored_digest, "digest": stored.digest},
        )
    return stored


def _read_stored(episode: Episode) -> StoredReceipt:
    recorded = episode.receipt_digest
    try:
        data = zlib.decompress(bytes(episode.receipt_gz))
    except zlib.error:
        return StoredReceipt(
            DAMAGED, None, None, None, recorded, "the bytes do not decompress"
        )
    digest = hashlib.sha256(data).hexdigest()
    if digest == recorded:
        # Exactly the bytes the episode wrote: canonical JSON of a receipt
        # (read strictly below only if even that is not so).
        try:
            document = json.loads(data)
        except ValueError:
            document = None
        if isinstance(document, dict):
            return StoredReceipt(INTACT, data, document, digest, recorded)
    try:
        document = read_receipt_json(data)
    except SchemaInvalid as error:
        first = error.problems[0]
        problem = f"{error.message} ({first.path}: {first.message})"
        return StoredReceipt(DAMAGED, data, None, digest, recorded, problem)
    if not isinstance(document, dict):
        problem = "the bytes are JSON but not an object"
        return StoredReceipt(DAMAGED, data, None, digest, recorded, problem)
    status = INTACT if digest == recorded else ALTERED
    return StoredReceipt(status, data, document, digest, recorded)


def receipt_check(document: Any) -> None:
    """Refuse a receipt that holds a number no receipt can (infinite, NaN,
    past 64 bits: ``receipt_value_problems``) or whose config cannot be
    replayed at all (an action outside N, S, E, W, Stay, a missing map, a
    negative ``e_max``...): that is bad input, not a divergence. Raises
    ``SchemaInvalid`` naming the field and the reason."""
    values = receipt_value_problems(document)
    if values:
        raise SchemaInvalid("the receipt holds values out of range", problems=values)
    if not isinstance(document, dict):
        return
    version = document.get("schema_version")
    if isinstance(version, bool) or version not in SCHEMA_VERSIONS:
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
