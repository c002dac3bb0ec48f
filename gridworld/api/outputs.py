"""The answers of the gridworld API and their OpenAPI schema, from one
definition: each serializer below builds the body its views return
(``GridworldBatchOutputSerializer(batch, context={"request": ...}).data``) and is the
schema drf-spectacular writes for it, so a field added to an answer is a
field of the schema.

Values go out as the rows hold them (times as ``isoformat()``, numbers as
stored, ``None`` for a blank error); ``request`` in the context makes a
batch's ``url`` absolute; ``stored`` (one episode's ``StoredReceipt``) adds
the receipt's state as stored now to an episode.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from gridworld.core.batch_figures import figures_wire
from gridworld.core.replay import Verification
from gridworld.core.stats import CONFIDENCE
from gridworld.models import Episode, EpisodeBatch


class AsIs(serializers.JSONField):
    """Any JSON value, out as the row holds it."""

    def to_representation(self, value: Any) -> Any:
        return value


class Document(serializers.DictField):
    """A JSON object, out as the row holds it (keys and order kept)."""

    def to_representation(self, value: Any) -> Any:
        return value


class GridworldProgressOutputSerializer(serializers.Serializer):
    done = serializers.IntegerField(source="progress_done")
    total = serializers.IntegerField(source="total_cases")


class GridworldMapOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    hash = serializers.CharField(source="digest")


class GridworldSeedsOutputSerializer(serializers.Serializer):
    first = serializers.IntegerField()
    last = serializers.IntegerField()


class GridworldVerdictOutputSerializer(serializers.Serializer):
    # "pass" is a keyword: declared in get_fields.
    failedProperties = serializers.ListField(child=serializers.CharField())  # noqa: N815

    def get_fields(self) -> dict[str, serializers.Field]:
        return {"pass": serializers.BooleanField(), **super().get_fields()}


class GridworldBatchOutputSerializer(serializers.Serializer):
    """An episode batch: its run's status, progress, metrics and verdict."""

    id = serializers.IntegerField(source="pk")
    runId = serializers.CharField(source="run.run_id")  # noqa: N815
    benchmarkId = serializers.CharField(source="run.benchmark.benchmark_id")  # noqa: N815
    status = serializers.CharField(source="run.status")
    progress = GridworldProgressOutputSerializer(source="run")
    config = Document(help_text="the batch config as stored (snake_case)")
    map = GridworldMapOutputSerializer(source="grid_map")
    episodes = serializers.IntegerField()
    seeds = serializers.SerializerMethodField()
    proposer = serializers.CharField()
    governor = serializers.CharField()
    createdBy = serializers.SerializerMethodField()  # noqa: N815
    startedAt = serializers.SerializerMethodField()  # noqa: N815
    completedAt = serializers.SerializerMethodField()  # noqa: N815
    metrics = Document(source="run.metrics")
    passRate = serializers.SerializerMethodField()  # noqa: N815
    verdict = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    @extend_schema_field(GridworldSeedsOutputSerializer)
    def get_seeds(self, batch: EpisodeBatch) -> dict[str, int]:
        return {"first": batch.seed, "last": batch.seed + batch.episodes - 1}

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_createdBy(self, batch: EpisodeBatch) -> str | None:  # noqa: N802
        return batch.created_by.get_username() if batch.created_by else None

    @extend_schema_field(OpenApiTypes.DATETIME)
    def get_startedAt(self, batch: EpisodeBatch) -> str:  # noqa: N802
        return batch.run.started_at.isoformat()

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_completedAt(self, batch: EpisodeBatch) -> str | None:  # noqa: N802
        completed = batch.run.completed_at
        return completed.isoformat() if completed else None

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_passRate(self, batch: EpisodeBatch) -> float | None:  # noqa: N802
        run = batch.run
        return run.pass_rate if run.completed_at else None

    @extend_schema_field(GridworldVerdictOutputSerializer(allow_null=True))
    def get_verdict(self, batch: EpisodeBatch) -> dict[str, Any] | None:
        run = batch.run
        if run.verdict_passed is None:
            return None
        return {"pass": run.verdict_passed, "failedProperties": run.failed_properties}

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_error(self, batch: EpisodeBatch) -> str | None:
        return batch.run.error or None

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, batch: EpisodeBatch) -> str:
        url = batch.get_absolute_url()
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request is not None else url


class GridworldEpisodeOutputSerializer(serializers.Serializer):
    """An episode. With ``stored`` in the context (one episode's answer)
    ``receiptDigest`` and ``receiptBytes`` describe the receipt bytes as
    stored now, ``receiptStatus`` says whether they are still the ones
    recorded (``intact``, ``altered``, ``damaged``) and
    ``storedReceiptDigest`` is the digest recorded with the episode. Lists
    carry the recorded digest and size (reading every receipt would cost a
    page its speed)."""

    index = serializers.IntegerField()
    seed = serializers.IntegerField()
    runId = serializers.CharField(source="run_id")  # noqa: N815
    passed = serializers.BooleanField()
    success = serializers.BooleanField()
    steps = serializers.IntegerField()
    safetyViolations = serializers.IntegerField(source="safety_violations")  # noqa: N815
    receiptDigest = serializers.SerializerMethodField()  # noqa: N815
    receiptBytes = serializers.SerializerMethodField()  # noqa: N815
    metrics = Document()
    url = serializers.CharField(source="get_absolute_url")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_receiptDigest(self, episode: Episode) -> str | None:  # noqa: N802
        stored = self.context.get("stored")
        return episode.receipt_digest if stored is None else stored.digest

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_receiptBytes(self, episode: Episode) -> int | None:  # noqa: N802
        stored = self.context.get("stored")
        if stored is None:
            return episode.receipt_bytes
        return None if stored.data is None else len(stored.data)


class GridworldEpisodeDetailOutputSerializer(GridworldEpisodeOutputSerializer):
    """One episode with its receipt's state as stored now (``stored``)."""

    receiptStatus = serializers.SerializerMethodField()  # noqa: N815
    storedReceiptDigest = serializers.SerializerMethodField()  # noqa: N815

    @extend_schema_field(
        serializers.ChoiceField(choices=["intact", "altered", "damaged"])
    )
    def get_receiptStatus(self, episode: Episode) -> str:  # noqa: N802
        return str(self.context["stored"].status)

    @extend_schema_field(serializers.CharField())
    def get_storedReceiptDigest(self, episode: Episode) -> str:  # noqa: N802
        return str(self.context["stored"].stored_digest)


class GridworldDivergenceOutputSerializer(serializers.Serializer):
    step = serializers.IntegerField(allow_null=True)
    field = serializers.CharField()
    expected = AsIs(allow_null=True)
    got = AsIs(allow_null=True)


class GridworldVerificationOutputSerializer(serializers.Serializer):
    """What replaying an uploaded receipt found (a ``Verification``); the
    field names are the receipt format's (snake_case)."""

    verified = serializers.BooleanField(source="ok")
    run_id = serializers.CharField()
    steps_checked = serializers.IntegerField()
    divergence = serializers.SerializerMethodField()

    @extend_schema_field(GridworldDivergenceOutputSerializer(allow_null=True))
    def get_divergence(self, verification: Verification) -> dict[str, Any] | None:
        divergence = verification.divergence
        if divergence is None:
            return None
        return {
            "step": divergence.step,
            "field": divergence.field,
            "expected": divergence.expected,
            "got": divergence.got,
        }


def page_schema(
    name: str, item: type[serializers.Serializer]
) -> serializers.Serializer:
    """The ``{"count", "results"}`` page of a list endpoint."""
    return inline_serializer(
        name, {"count": serializers.IntegerField(), "results": item(many=True)}
    )


class GridworldIntervalOutputSerializer(serializers.Serializer):
    point = serializers.FloatField()
    low = serializers.FloatField()
    high = serializers.FloatField()


class GridworldMetricFiguresOutputSerializer(serializers.Serializer):
    metric = serializers.CharField()
    label = serializers.CharField()
    unit = serializers.CharField()
    higherIsBetter = serializers.BooleanField()  # noqa: N815
    iqm = GridworldIntervalOutputSerializer()
    mean = GridworldIntervalOutputSerializer()


class GridworldFiguresOutputSerializer(serializers.Serializer):
    """A finished batch's figures: per episode metric the IQM and the mean
    with stratified bootstrap 95% intervals (``confidence``), over
    ``episodes`` episodes in ``strata`` (maps); ``episodesUrl`` lists the
    episodes (and their receipts) they came from."""

    episodes = serializers.IntegerField()
    strata = serializers.ListField(child=serializers.CharField())
    resamples = serializers.IntegerField()
    seed = serializers.IntegerField()
    confidence = serializers.FloatField()
    episodesUrl = serializers.URLField()  # noqa: N815
    metrics = GridworldMetricFiguresOutputSerializer(many=True)


class GridworldBatchDetailOutputSerializer(GridworldBatchOutputSerializer):
    """One batch (as listed) with ``figures``: ``null`` while the batch runs
    or when it has no stored episode. ``figures`` in the context: the
    batch's ``BatchStats`` or ``None``."""

    figures = serializers.SerializerMethodField()

    @extend_schema_field(GridworldFiguresOutputSerializer(allow_null=True))
    def get_figures(self, batch: EpisodeBatch) -> dict[str, Any] | None:
        stats = self.context.get("figures")
        if stats is None:
            return None
        url = reverse("gridworld:api-episodes", args=[batch.pk])
        request = self.context.get("request")
        return {
            "episodes": stats.episodes,
            "strata": stats.strata,
            "resamples": stats.resamples,
            "seed": stats.seed,
            "confidence": CONFIDENCE,
            "episodesUrl": request.build_absolute_uri(url) if request else url,
            "metrics": figures_wire(stats.figures),
        }
