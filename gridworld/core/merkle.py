"""RFC 6962-style Merkle tree hash with leaf/node domain separation.

``leaf = sha256(0x00 || data)``, ``node = sha256(0x01 || left || right)``; a list
of n > 1 items splits at the largest power of two smaller than n. The empty
list hashes to ``sha256(b"")``. Hex digests out; deterministic by construction.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"


def _root(leaves: list[bytes]) -> bytes:
    n = len(leaves)
    if n == 1:
        return leaves[0]
    split = 1
    while split * 2 < n:
        split *= 2
    left, right = _root(leaves[:split]), _root(leaves[split:])
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


@lru_cache(maxsize=65536)
def merkle_root(items: tuple[bytes, ...]) -> str:
    """The Merkle tree hash of ``items`` in the given order, as hex.

    Cached: proposal sets repeat across the episodes of a batch.
    """
    if not items:
        return hashlib.sha256(b"").hexdigest()
    return _root([hashlib.sha256(LEAF_PREFIX + item).digest() for item in items]).hex()
