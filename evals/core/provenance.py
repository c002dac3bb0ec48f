"""What produced a run's numbers besides its suite and model (EV-C4).

Two runs of the same suite, profile, model and seed can still differ because
the code changed: the prompt template, the sanitizer's action vocabulary, the
grounding vocabulary, the claim-grounding rules. ``pipeline_versions``
records each as an id/version plus a digest of its data, so a bundle names
exactly what it ran; ``version_notes`` says, in words, which of them differ
between two runs. Pure: the code version (a git commit) comes in as an
argument.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from core.canonical import digest, sha256_hex
from stream.core.claims import (
    CLAIM_ENTITIES,
    CLAIM_GROUNDING_VERSION,
    CLAIM_ITEMS,
    CLAIM_PLACES,
    HOSTILE_CLASS,
    PASSIVE_CLASS,
)
from stream.core.goals import (
    ACTION_NORMALIZE_MAP,
    CANONICAL_ACTIONS,
    NORMALIZE_MAP_VERSION,
    ROUTABLE_ACTIONS,
)
from stream.core.grounding import (
    ITEM_WORDS,
    KNOWN_BIOMES,
    KNOWN_ENTITIES,
    NEEDS_MATERIALS,
)
from stream.core.prompts import DEFAULT_TEMPLATE, TEMPLATES

# The keys of ``versions`` in a run's config, with their words for notes.
LABELS: Final = {
    "promptTemplate": "prompt template",
    "sanitizer": "sanitizer normalise map",
    "grounding": "grounding vocabulary",
    "claimGrounding": "claim grounding rules",
    "code": "code version",
}


def pipeline_versions(
    *, template: str = DEFAULT_TEMPLATE, git_commit: str | None = None
) -> dict[str, Any]:
    """The versions block of a run's config and summary.

    ``{"promptTemplate": {"id", "sha256"}, "sanitizer": {"normalizeMapVersion",
    "digest"}, "grounding": {"digest"}, "claimGrounding": {"version"},
    "code": {"gitCommit"}}``; ``gitCommit`` is null when unknown. Raises
    ``KeyError`` for an unknown template.
    """
    sanitizer = {
        "canonical": sorted(CANONICAL_ACTIONS),
        "normalize": dict(sorted(ACTION_NORMALIZE_MAP.items())),
        "routable": sorted(ROUTABLE_ACTIONS),
    }
    vocabulary = {
        "entities": sorted(KNOWN_ENTITIES),
        "biomes": sorted(KNOWN_BIOMES),
        "itemWords": list(ITEM_WORDS),
        "needsMaterials": sorted(NEEDS_MATERIALS),
    }
    claim_vocabulary = {
        "entities": sorted(CLAIM_ENTITIES),
        "hostileClass": sorted(HOSTILE_CLASS),
        "passiveClass": sorted(PASSIVE_CLASS),
        "items": sorted(CLAIM_ITEMS),
        "places": sorted(CLAIM_PLACES),
    }
    return {
        "promptTemplate": {"id": template, "sha256": sha256_hex(TEMPLATES[template])},
        "sanitizer": {
            "normalizeMapVersion": NORMALIZE_MAP_VERSION,
            "digest": digest(sanitizer),
        },
        "grounding": {"digest": digest(vocabulary)},
        "claimGrounding": {
            "version": CLAIM_GROUNDING_VERSION,
            "digest": digest(claim_vocabulary),
        },
        "code": {"gitCommit": git_commit},
    }


def version_notes(
    base: Mapping[str, Any] | None, candidate: Mapping[str, Any] | None
) -> list[str]:
    """One sentence per versions entry that differs between two runs.

    A run recorded before versions were recorded says so once; a code
    version unknown on either side is not a difference.
    """
    if not base or not candidate:
        sides = (("base", base), ("candidate", candidate))
        missing = [side for side, versions in sides if not versions]
        return [
            f"the {' and '.join(missing)} run recorded no pipeline versions: "
            "a difference caused by code cannot be ruled out"
        ]
    notes = []
    for key, label in LABELS.items():
        left, right = base.get(key), candidate.get(key)
        if key == "code":
            left_commit = (left or {}).get("gitCommit")
            right_commit = (right or {}).get("gitCommit")
            if left_commit and right_commit and left_commit != right_commit:
                notes.append(
                    f"{label} differs: {left_commit[:12]} vs {right_commit[:12]}"
                )
            continue
        if left != right:
            notes.append(f"{label} differs: {_short(left)} vs {_short(right)}")
    return notes


def _short(value: Any) -> str:
    if not isinstance(value, Mapping):
        return "none"
    parts = []
    for key in sorted(value):
        item = value[key]
        text = str(item)
        parts.append(f"{key} {text[:12] if len(text) > 16 else text}")
    return ", ".join(parts)
