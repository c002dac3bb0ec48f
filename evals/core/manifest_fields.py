"""The benchmark pack manifest, field by field, for people writing one.

One reference shown on the upload pages' "Manifest format" page and kept
equal to ``docs/benchmarks.md`` and to ``schemas/manifest.v1.schema.json``
(tests compare the three). Pure data, no Django.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ManifestField:
    """One field: its path in the manifest, whether it is required, the
    kind of value and what it means."""

    path: str
    required: str
    value: str
    meaning: str


MANIFEST_FIELDS: tuple[ManifestField, ...] = (
    ManifestField("schemaVersion", "yes", "integer", "Always 1."),
    ManifestField(
        "benchmarkId",
        "yes",
        "text",
        "The pack's id, which runs name in their benchmarkId. Used as a "
        "directory name in the eval store, so it may not be . or .. nor "
        "contain a slash or a backslash; spaces around it are trimmed.",
    ),
    ManifestField("title", "yes", "text", "The name shown on the pages."),
    ManifestField(
        "benchmarkType",
        "no",
        "standard or memory-red-team",
        "standard when absent. A memory-red-team pack needs attackClass and "
        "targetSurface, and is accepted only with the "
        "MEMORY_RED_TEAM_BENCH_ENABLED setting on.",
    ),
    ManifestField("description", "no", "text", "A longer description."),
    ManifestField(
        "tags",
        "no",
        "list of texts",
        "Labels the benchmarks page filters by.",
    ),
    ManifestField(
        "sourceLinks",
        "no",
        "list of texts",
        "Where the benchmark comes from (papers, repositories).",
    ),
    ManifestField(
        "attackClass",
        "red-team packs",
        "text",
        "The kind of attack the cases try, e.g. provenance-spoofing.",
    ),
    ManifestField(
        "targetSurface",
        "red-team packs",
        "text",
        "What the attack targets, e.g. trust-zone-promotion.",
    ),
    ManifestField(
        "cases",
        "yes",
        "list of cases",
        "The cases of the benchmark; each case's id is unique in the pack.",
    ),
    ManifestField(
        "cases[].id",
        "yes",
        "text",
        "The case's id; run summaries report results per case id.",
    ),
    ManifestField("cases[].prompt", "yes", "text", "The input the agent gets."),
    ManifestField(
        "cases[].expectedSignals",
        "no",
        "list of texts",
        "What a good answer shows, for the people and graders reading it.",
    ),
    ManifestField("cases[].notes", "no", "text", "Free notes about the case."),
)
"""Every field, top level first, then a case's fields."""

UNKNOWN_FIELDS_RULE = (
    "Other top-level fields are kept as they are (newer writers may add "
    "some); a field inside a case that is not listed here is an error."
)
TEXT_RULE = (
    "Every text field except description and notes must hold a visible "
    "character; lists may be empty."
)

MANIFEST_EXAMPLE: dict[str, object] = {
    "schemaVersion": 1,
    "benchmarkId": "ama-memory",
    "title": "AMA-style agent memory harness",
    "tags": ["trajectory", "objective-state"],
    "sourceLinks": ["https://arxiv.org/abs/2602.22769"],
    "cases": [
        {
            "id": "resume-deploy",
            "prompt": "Resume the broken deployment and explain what changed.",
            "expectedSignals": ["objective-state"],
        },
        {
            "id": "recall-owner",
            "prompt": "Who owns the billing service, according to last week's notes?",
        },
    ],
}
"""A small valid manifest (the tests validate it)."""
