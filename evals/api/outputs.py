"""The answers of the evals API and their OpenAPI schema, from one
definition: each serializer below builds the body its views return
(``BenchmarkPackOutputSerializer(benchmark, context=...).data``) and is the
schema drf-spectacular writes for it (schemathesis checks every answer
against it), so a field added to an answer is a field of the schema.

The fields pass values through as the models hold them (``AsIs``): an
answer's bytes are what the wire functions that came before wrote
(``isoformat()`` times, numbers as stored, ``or None`` for blank text).
``detail`` in the context adds the detail-only fields; ``request`` makes
``url`` absolute; a saved answer's ``outcome``/``created`` come from the
context. The request documents point at the seed formats they must follow.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.fields import SkipField

from core.schemas import as_openapi, load_validator
from evals.core.format_rules import NUMBER_LIMIT, SAFE_SEGMENT_MAX_CHARS
from evals.selectors.runs import run_config_shown
from evals.services.pack_files import pack_file_names
from evalsite.paths import scrubbed


class AsIs(serializers.Field):
    """A field whose value goes out as the instance holds it; with
    ``blank_is_null`` a blank value (``""``, ``{}``, ``[]``) is null; with
    ``detail_only`` it is left out unless the context asks for ``detail``;
    with ``from_context`` the value is the context's entry of that name."""

    def __init__(
        self,
        *args: Any,
        blank_is_null: bool = False,
        detail_only: bool = False,
        from_context: bool = False,
        **kwargs: Any,
    ) -> None:
        self.blank_is_null = blank_is_null
        self.detail_only = detail_only
        self.from_context = from_context
        super().__init__(*args, **kwargs)

    def get_attribute(self, instance: Any) -> Any:
        if self.detail_only and not self.context.get("detail"):
            raise SkipField()
        if self.from_context:
            return self.context[self.field_name]
        value = super().get_attribute(instance)
        return (value or None) if self.blank_is_null else value

    def to_representation(self, value: Any) -> Any:
        return value


class Text(AsIs, serializers.CharField):
    pass


class Integer(AsIs, serializers.IntegerField):
    pass


class Number(AsIs, serializers.FloatField):
    pass


class Flag(AsIs, serializers.BooleanField):
    pass


class Choice(AsIs, serializers.ChoiceField):
    pass


class Document(AsIs, serializers.DictField):
    pass


class Items(AsIs, serializers.ListField):
    pass


class Timestamp(AsIs, serializers.DateTimeField):
    """A stored time as ``datetime.isoformat()`` writes it."""

    def to_representation(self, value: Any) -> Any:
        return value.isoformat()


class AbsoluteUrl(AsIs, serializers.URLField):
    """The instance's page (``get_absolute_url``), absolute when the context
    has the request."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="get_absolute_url", **kwargs)

    def to_representation(self, value: Any) -> Any:
        request = self.context.get("request")
        return request.build_absolute_uri(value) if request is not None else value


class PackFiles(Items):
    """The paths of a pack's extra files (detail only)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", detail_only=True, **kwargs)

    def to_representation(self, value: Any) -> Any:
        return pack_file_names(benchmark=value)


class CaseResults(Items):
    """A recorded run's cases: ``caseId``, ``passed`` and the case's details."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="case_results.all", detail_only=True, **kwargs)

    def to_representation(self, value: Any) -> Any:
        return [
            {"caseId": case.case_id, "passed": case.passed, **case.details}
            for case in value
        ]


class BenchmarkPackOutputSerializer(serializers.Serializer):
    """A benchmark; ``detail`` adds the manifest and the pack's files."""

    benchmarkId = Text(source="benchmark_id")  # noqa: N815 (wire names)
    kind = Text()
    title = Text()
    benchmarkType = Text(source="benchmark_type")  # noqa: N815
    attackClass = Text(source="attack_class", allow_null=True, blank_is_null=True)  # noqa: N815
    targetSurface = Text(  # noqa: N815
        source="target_surface", allow_null=True, blank_is_null=True
    )
    tags = Items(child=serializers.CharField())
    caseCount = Integer(source="case_count")  # noqa: N815
    manifestDigest = Text(  # noqa: N815
        source="manifest_digest", allow_null=True, blank_is_null=True
    )
    createdAt = Timestamp(source="created_at")  # noqa: N815
    updatedAt = Timestamp(source="updated_at")  # noqa: N815
    url = AbsoluteUrl()
    # Only where the list annotated it (absent otherwise: not required).
    runCount = Integer(source="run_count", required=False)  # noqa: N815
    manifest = Document(
        required=False,
        allow_null=True,
        blank_is_null=True,
        detail_only=True,
        help_text="detail: the stored manifest",
    )
    files = PackFiles(
        child=serializers.CharField(),
        required=False,
        help_text="detail: the paths of the pack's extra files",
    )


class BenchmarkPackSavedSerializer(BenchmarkPackOutputSerializer):
    outcome = Choice(
        choices=["created", "replaced", "unchanged"], source="*", from_context=True
    )


class BenchmarkRunOutputSerializer(serializers.Serializer):
    """A run of any benchmark; ``detail`` adds its eval-store run summary
    and its case results."""

    runId = Text(source="run_id")  # noqa: N815
    benchmarkId = Text(source="benchmark.benchmark_id")  # noqa: N815
    kind = Text(source="benchmark.kind")
    source = Text()
    status = Text()
    startedAt = Timestamp(source="started_at")  # noqa: N815
    completedAt = Timestamp(source="completed_at", allow_null=True)  # noqa: N815
    totalCases = Integer(source="total_cases")  # noqa: N815
    passedCases = Integer(source="passed_cases")  # noqa: N815
    failedCases = Integer(source="failed_cases")  # noqa: N815
    passRate = Number(source="pass_rate", allow_null=True)  # noqa: N815
    metrics = Document()
    gitRef = Text(source="git_ref", allow_null=True, blank_is_null=True)  # noqa: N815
    url = AbsoluteUrl()
    summary = Document(
        required=False,
        allow_null=True,
        blank_is_null=True,
        detail_only=True,
        help_text="detail: the run summary",
    )
    caseResults = CaseResults(  # noqa: N815
        child=serializers.DictField(), required=False, help_text="detail"
    )


class BenchmarkRunSavedSerializer(BenchmarkRunOutputSerializer):
    created = Flag(source="*", from_context=True)


class BaselineSnapshotOutputSerializer(serializers.Serializer):
    """A baseline snapshot; ``detail`` adds its document."""

    snapshotId = Text(source="snapshot_id")  # noqa: N815
    createdAt = Text(source="document.createdAt", allow_null=True)  # noqa: N815
    benchmarkCount = Integer(source="document.benchmarkCount", allow_null=True)  # noqa: N815
    sourceRootDir = Text(source="source_root_dir")  # noqa: N815
    notes = Text(allow_null=True, blank_is_null=True)
    url = AbsoluteUrl()
    document = Document(
        required=False, detail_only=True, help_text="detail: the snapshot document"
    )


class BaselineSnapshotSavedSerializer(BaselineSnapshotOutputSerializer):
    outcome = Choice(
        choices=["created", "replaced", "unchanged"], source="*", from_context=True
    )


class ShadowIngestSerializer(serializers.Serializer):
    """What a shadow record write stored (``ShadowIngestResult``)."""

    created = Integer()
    unchanged = Integer()
    traceIds = Items(source="trace_ids", child=serializers.CharField())  # noqa: N815

    def to_representation(self, instance: Any) -> Any:
        body = super().to_representation(instance)
        body["traceIds"] = list(body["traceIds"])
        return body


class SuiteVersionSerializer(serializers.Serializer):
    """A version of a suite some run has seen."""

    suiteSha256 = Text(source="suite_sha256")  # noqa: N815
    lineCount = Integer(source="line_count")  # noqa: N815
    firstSeenAt = Timestamp(source="first_seen_at")  # noqa: N815


class SuiteVersions(Items):
    """The versions runs have seen of a suite: the context's ``versions``
    (suite id to its version rows)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="suite_id", child=SuiteVersionSerializer(), **kwargs)

    def to_representation(self, value: Any) -> Any:
        rows = self.context["versions"].get(value, [])
        return [dict(item) for item in SuiteVersionSerializer(rows, many=True).data]


class SuiteUrl(AsIs, serializers.CharField):
    """The suite's page (a path)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="suite_id", **kwargs)

    def to_representation(self, value: Any) -> Any:
        return reverse("evals:suite-detail", args=[value])


class EvalSuiteSerializer(serializers.Serializer):
    """A suite on disk now (``SuiteFile``) with the versions runs have seen."""

    suiteId = Text(source="suite_id")  # noqa: N815
    name = Text()
    lineCount = Integer(source="line_count")  # noqa: N815
    suiteSha256 = Text(source="suite_sha256")  # noqa: N815
    valid = Flag(source="is_valid")
    invalidLines = Integer(source="invalid_lines")  # noqa: N815
    hasScript = Flag(source="has_script")  # noqa: N815
    versions = SuiteVersions()
    url = SuiteUrl()


class RunConfig(Document):
    """A harness run's configuration as users see it (``run_config_shown``)."""

    def to_representation(self, value: Any) -> Any:
        return run_config_shown(value)


class Progress(AsIs, serializers.DictField):
    """``{"done", "total"}`` cases of a harness run."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", child=serializers.IntegerField(), **kwargs)

    def to_representation(self, value: Any) -> Any:
        return {"done": value.progress_done, "total": value.total_cases}


class Verdict(AsIs, serializers.DictField):
    """``{"pass", "failedProperties"}`` of a finished harness run, else null."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", allow_null=True, **kwargs)

    def get_attribute(self, instance: Any) -> Any:
        return None if instance.verdict_passed is None else instance

    def to_representation(self, value: Any) -> Any:
        return {
            "pass": value.verdict_passed,
            "failedProperties": value.failed_properties,
        }


class RunError(Text):
    """The run's error with server paths scrubbed, null when none."""

    def to_representation(self, value: Any) -> Any:
        return scrubbed(value) or None


class RunUncertainty(Document):
    """Each figure of the run summary with its uncertainty
    (``evals.core.run_uncertainty``: estimate, clustered standard error,
    95% interval, n, K, variance split, design effect, advice), as the view
    puts it in the context: on a run's detail, for a run made with repeats
    or a reducer or when asked (``?uncertainty=true``); null until the run
    finishes; left out otherwise."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_null=True, required=False, **kwargs)

    def get_attribute(self, instance: Any) -> Any:
        if "uncertainty" not in self.context:
            raise SkipField()
        return self.context["uncertainty"] or None


class EvalRunSerializer(serializers.Serializer):
    """A scenario eval run as the harness API shows it: status, progress,
    metrics, verdict."""

    runId = Text(source="run_id")  # noqa: N815
    benchmarkId = Text(source="benchmark.benchmark_id")  # noqa: N815
    kind = Text(source="benchmark.kind")
    status = Text()
    progress = Progress()
    config = RunConfig()
    suiteSha256 = Text(source="suite_sha256", allow_null=True, blank_is_null=True)  # noqa: N815
    startedAt = Timestamp(source="started_at")  # noqa: N815
    completedAt = Timestamp(source="completed_at", allow_null=True)  # noqa: N815
    totalCases = Integer(source="total_cases")  # noqa: N815
    passedCases = Integer(source="passed_cases")  # noqa: N815
    failedCases = Integer(source="failed_cases")  # noqa: N815
    metrics = Document()
    verdict = Verdict()
    error = RunError(allow_null=True)
    url = AbsoluteUrl()


class EvalRunDetailSerializer(EvalRunSerializer):
    """One scenario eval run: an ``EvalRun`` and, for a run made with
    repeats or a reducer or when asked, ``uncertainty``."""

    uncertainty = RunUncertainty()


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
