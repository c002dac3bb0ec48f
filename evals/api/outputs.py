"""The shapes the benchmark API answers with, for the OpenAPI schema.

Documentation only: the views build their bodies with ``pack_to_wire``,
``run_to_wire`` and ``snapshot_to_wire``; these serializers declare those
bodies field by field (schemathesis checks every answer against them), and
the request documents point at the seed formats they must follow.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from core.schemas import as_openapi, load_validator
from evals.core.format_rules import NUMBER_LIMIT, SAFE_SEGMENT_MAX_CHARS


class BenchmarkPackOutputSerializer(serializers.Serializer):
    benchmarkId = serializers.CharField()  # noqa: N815 (wire names)
    kind = serializers.CharField()
    title = serializers.CharField()
    benchmarkType = serializers.CharField()  # noqa: N815
    attackClass = serializers.CharField(allow_null=True)  # noqa: N815
    targetSurface = serializers.CharField(allow_null=True)  # noqa: N815
    tags = serializers.ListField(child=serializers.CharField())
    caseCount = serializers.IntegerField()  # noqa: N815
    manifestDigest = serializers.CharField(allow_null=True)  # noqa: N815
    createdAt = serializers.DateTimeField()  # noqa: N815
    updatedAt = serializers.DateTimeField()  # noqa: N815
    url = serializers.URLField()
    runCount = serializers.IntegerField(required=False)  # noqa: N815
    manifest = serializers.DictField(
        required=False, allow_null=True, help_text="detail: the stored manifest"
    )
    files = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="detail: the paths of the pack's extra files",
    )


class BenchmarkPackSavedSerializer(BenchmarkPackOutputSerializer):
    outcome = serializers.ChoiceField(choices=["created", "replaced", "unchanged"])


class BenchmarkRunOutputSerializer(serializers.Serializer):
    runId = serializers.CharField()  # noqa: N815
    benchmarkId = serializers.CharField()  # noqa: N815
    kind = serializers.CharField()
    source = serializers.CharField()
    status = serializers.CharField()
    startedAt = serializers.DateTimeField()  # noqa: N815
    completedAt = serializers.DateTimeField(allow_null=True)  # noqa: N815
    totalCases = serializers.IntegerField()  # noqa: N815
    passedCases = serializers.IntegerField()  # noqa: N815
    failedCases = serializers.IntegerField()  # noqa: N815
    passRate = serializers.FloatField(allow_null=True)  # noqa: N815
    metrics = serializers.DictField()
    gitRef = serializers.CharField(allow_null=True)  # noqa: N815
    url = serializers.URLField()
    summary = serializers.DictField(
        required=False, allow_null=True, help_text="detail: the run summary"
    )
    caseResults = serializers.ListField(  # noqa: N815
        child=serializers.DictField(), required=False, help_text="detail"
    )


class BenchmarkRunSavedSerializer(BenchmarkRunOutputSerializer):
    created = serializers.BooleanField()


class BaselineSnapshotOutputSerializer(serializers.Serializer):
    snapshotId = serializers.CharField()  # noqa: N815
    createdAt = serializers.CharField(allow_null=True)  # noqa: N815
    benchmarkCount = serializers.IntegerField(allow_null=True)  # noqa: N815
    sourceRootDir = serializers.CharField()  # noqa: N815
    notes = serializers.CharField(allow_null=True)
    url = serializers.URLField()
    document = serializers.DictField(
        required=False, help_text="detail: the snapshot document"
    )


class BaselineSnapshotSavedSerializer(BaselineSnapshotOutputSerializer):
    outcome = serializers.ChoiceField(choices=["created", "replaced", "unchanged"])


def page_schema(
    name: str, item: type[serializers.Serializer]
) -> serializers.Serializer:
    """The ``{"count", "results"}`` page of a list endpoint."""
    return inline_serializer(
        name, {"count": serializers.IntegerField(), "results": item(many=True)}
    )


def _store_limits(schema: Any) -> None:
    """What the core checks beyond the JSON Schema and a schema can say:
    every ``...At`` string is an RFC 3339 timestamp with a zone
    (``format: date-time``) and every number is at most ``NUMBER_LIMIT`` in
    magnitude."""
    if not isinstance(schema, dict):
        return
    if schema.get("type") in ("number", "integer"):
        schema.setdefault("minimum", -NUMBER_LIMIT)
        schema.setdefault("maximum", NUMBER_LIMIT)
    for name, child in (schema.get("properties") or {}).items():
        if name.endswith("At") and child.get("type") == "string":
            child["format"] = "date-time"
        _store_limits(child)
    for key in ("items", "additionalProperties"):
        _store_limits(schema.get(key))


def seed_schema(name: str, fmt: str, id_field: str) -> dict[str, Any]:
    """The request schema of a seed-format document: the JSON Schema the
    core validates it with (``evals/core/schemas/<name>``) written as
    OpenAPI, so the API schema states what is checked. The id is at most
    ``SAFE_SEGMENT_MAX_CHARS`` characters."""
    schema: dict[str, Any] = as_openapi(load_validator("evals.core", name).schema)
    _store_limits(schema)
    schema["properties"][id_field] = {
        **schema["properties"][id_field],
        "maxLength": SAFE_SEGMENT_MAX_CHARS,
    }
    schema["description"] = (
        f"a {fmt} document; the id is a safe path segment: not . or .., "
        "no / or \\, no control, zero-width or bidi characters"
    )
    return schema
