"""Planning's metadata rules (the agency contract §1.1): which keys of an incoming
thought's
metadata propagate to its task, which are rebuilt, which a patch may never
write, and the task's metadata built from them. Pure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

PROPAGATED_META_KEYS: Final = ("goalKey", "subtaskKey", "taskProvenance")


REBUILT_KEYS: Final = (
    "createdAt",
    "updatedAt",
    "retryCount",
    "maxRetries",
    "childTaskIds",
    "tags",
    "category",
    "solver",
)


# Keys a metadata patch may never write: the identity and the audit stamps.
PATCH_PROTECTED_KEYS: Final = frozenset({"origin", "goalKey", "createdAt", "updatedAt"})


DEFAULT_MAX_RETRIES: Final = 3


def goal_key_or_none(value: object) -> str | None:
    """A usable goal key, or ``None``: ``''``, blanks and non-strings are absent."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


@dataclass(frozen=True, slots=True)
class MetadataProjection:
    """What survives of incoming metadata.

    ``goal_key`` is the propagated goalKey (``None`` when absent or empty);
    ``kept`` the other propagated pairs in ``PROPAGATED_META_KEYS`` order;
    ``dropped`` the keys outside both the allowlist and the rebuilt set, sorted
    (these are the ones to warn about); ``rebuilt_ignored`` incoming rebuilt
    keys, which the store overwrites silently.
    """

    goal_key: str | None
    kept: tuple[tuple[str, Any], ...]
    dropped: tuple[str, ...]
    rebuilt_ignored: tuple[str, ...]


def project_incoming_metadata(
    incoming: Mapping[str, Any] | None,
) -> MetadataProjection:
    """Project a caller's metadata onto the allowlist (projectIncomingMetadata).

    goalKey ``''`` is skipped, never kept (§1.3, layer 3). Deterministic.
    """
    source = incoming or {}
    goal_key = goal_key_or_none(source.get("goalKey"))
    kept = tuple(
        (key, source[key])
        for key in PROPAGATED_META_KEYS
        if key != "goalKey" and key in source and source[key] is not None
    )
    dropped = tuple(
        sorted(
            key
            for key in source
            if key not in PROPAGATED_META_KEYS and key not in REBUILT_KEYS
        )
    )
    rebuilt = tuple(sorted(key for key in source if key in REBUILT_KEYS))
    return MetadataProjection(goal_key, kept, dropped, rebuilt)


def keys_to_warn(dropped: Iterable[str], warned: frozenset[str]) -> tuple[str, ...]:
    """Dropped keys not warned about yet, sorted: one warning per key."""
    return tuple(sorted(set(dropped) - warned))


def build_task_metadata(
    projection: MetadataProjection,
    *,
    now_iso: str,
    tags: Sequence[str],
    category: str,
    solver: str | None,
    max_retries: int = DEFAULT_MAX_RETRIES,
) -> dict[str, Any]:
    """The stored metadata of a new task, rebuilt from scratch (addTask).

    goalKey is not part of it: the store keeps it in its own constrained
    column and adds it back on the wire.
    """
    metadata: dict[str, Any] = {
        "createdAt": now_iso,
        "updatedAt": now_iso,
        "retryCount": 0,
        "maxRetries": max_retries,
        "childTaskIds": [],
        "tags": list(tags),
        "category": category,
        "solver": solver,
    }
    metadata.update(projection.kept)
    return metadata


@dataclass(frozen=True, slots=True)
class MetadataPatch:
    """The merged metadata and the patch keys that were refused, sorted."""

    metadata: dict[str, Any]
    ignored: tuple[str, ...]


def apply_metadata_patch(
    current: Mapping[str, Any], patch: Mapping[str, Any], *, now_iso: str
) -> MetadataPatch:
    """Merge ``patch`` into ``current`` (updateTaskMetadata).

    ``origin`` is always removed from the patch (§1.2), as are goalKey and the
    audit stamps; ``updatedAt`` becomes ``now_iso``. ``current`` is not mutated.
    """
    merged = dict(current)
    ignored = sorted(key for key in patch if key in PATCH_PROTECTED_KEYS)
    for key, value in patch.items():
        if key not in PATCH_PROTECTED_KEYS:
            merged[key] = value
    merged["updatedAt"] = now_iso
    return MetadataPatch(merged, tuple(ignored))
