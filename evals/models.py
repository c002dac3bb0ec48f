"""The unified benchmark model: benchmarks, their runs and per-case results,
shadow recall records, baseline snapshots and invalid uploads kept for review.

A scenario suite (JSONL on disk), an uploaded benchmark pack (the eval-store contract
manifest) and a gridworld configuration are all ``Benchmark`` rows; every
execution of one is a ``Run``. Wire documents of the eval-store contract are stored as
they
came (camelCase JSON) beside the columns the pages and the gate query.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.urls import reverse


class Benchmark(models.Model):
    class Kind(models.TextChoices):
        SUITE = "suite", "scenario suite"
        PACK = "pack", "benchmark pack"
        GRIDWORLD = "gridworld", "gridworld configuration"

    class BenchmarkType(models.TextChoices):
        STANDARD = "standard"
        MEMORY_RED_TEAM = "memory-red-team"

    benchmark_id = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    title = models.CharField(max_length=500)
    benchmark_type = models.CharField(
        max_length=32, choices=BenchmarkType.choices, default=BenchmarkType.STANDARD
    )
    attack_class = models.CharField(max_length=200, blank=True)
    target_surface = models.CharField(max_length=200, blank=True)
    tags = models.JSONField(default=list, blank=True)
    # The eval-store contract's manifest as uploaded (packs), or the suite's
    # description.
    manifest = models.JSONField(default=dict, blank=True)
    manifest_digest = models.CharField(max_length=64, blank=True)
    # Digest of the extra files' {path: sha256} (empty: none); the files are
    # ``PackFile`` rows, their bytes in the pack file store.
    files_digest = models.CharField(max_length=64, blank=True)
    case_count = models.PositiveIntegerField(default=0)
    # Suites are read from disk on every run (hot swap); this is where.
    suite_path = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Who last replaced the pack with a different one (force).
    replaced_at = models.DateTimeField(null=True, blank=True)
    replaced_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    replaced_by_key = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["benchmark_id"]

    def __str__(self) -> str:
        return self.benchmark_id

    def get_absolute_url(self) -> str:
        return reverse("evals:benchmark-detail", args=[self.benchmark_id])


class SuiteVersion(models.Model):
    """One version of a suite file, as seen by a run (EV-C1 history)."""

    benchmark = models.ForeignKey(
        Benchmark, on_delete=models.CASCADE, related_name="suite_versions"
    )
    suite_sha256 = models.CharField(max_length=64)
    line_count = models.PositiveIntegerField()
    first_seen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-first_seen_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark", "suite_sha256"], name="uniq_suite_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.benchmark_id}@{self.suite_sha256[:12]}"


class Run(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        COMPLETED = "completed"
        FAILED = "failed"
        PARTIAL = "partial"

    class Source(models.TextChoices):
        HARNESS = "harness", "eval harness"
        API = "api", "posted over REST"
        IMPORT = "import", "imported from an eval store"

    run_id = models.CharField(max_length=200, unique=True)
    # Indexed by the (benchmark, ...) indexes below, whose first column
    # serves every lookup by benchmark the plain foreign-key index served.
    benchmark = models.ForeignKey(
        Benchmark, on_delete=models.CASCADE, related_name="runs", db_index=False
    )
    status = models.CharField(max_length=16, choices=Status.choices)
    source = models.CharField(max_length=16, choices=Source.choices)
    started_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)
    total_cases = models.PositiveIntegerField(default=0)
    passed_cases = models.PositiveIntegerField(default=0)
    failed_cases = models.PositiveIntegerField(default=0)
    metrics = models.JSONField(default=dict, blank=True)
    notes = models.TextField(blank=True)
    git_ref = models.CharField(max_length=200, blank=True)
    # The run summary as the eval-store contract writes it (camelCase), kept for export.
    summary = models.JSONField(default=dict, blank=True)
    # Imported runs: where the summary sat in its eval store, relative to the
    # store root (runs/2026-03-07/x.json), so an export puts it back there;
    # empty means runs/<run_id>.json.
    store_path = models.CharField(max_length=1000, blank=True)
    # Harness runs only: how the run was made, and its verdict.
    config = models.JSONField(default=dict, blank=True)
    suite_sha256 = models.CharField(max_length=64, blank=True)
    verdict_passed = models.BooleanField(null=True, blank=True)
    failed_properties = models.JSONField(default=list, blank=True)
    artifacts_dir = models.CharField(max_length=1000, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    # Harness runs: each figure of the summary with its uncertainty
    # (evals.core.run_uncertainty), written when the run finishes; kept
    # apart from ``summary`` and ``metrics``, whose shapes the eval-store
    # contract fixes.
    uncertainty = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="eval_runs",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-started_at"]
        # Each list reads its rows in its index's order and stops at the page
        # (the plan tests check it): the whole order is in the index, ties
        # included, so no read sorts all the runs of a benchmark.
        indexes = [
            models.Index(fields=["benchmark", "status", "-completed_at"]),
            # The run list, newest first.
            models.Index(fields=["-started_at", "-id"], name="run_newest_idx"),
            # The run list of one benchmark.
            models.Index(
                fields=["benchmark", "-started_at", "-id"],
                name="run_benchmark_newest_idx",
            ),
            # A benchmark's trend: its newest finished runs.
            models.Index(
                fields=["benchmark", "-completed_at", "-id"],
                condition=Q(completed_at__isnull=False),
                name="run_benchmark_finished_idx",
            ),
            # The gate's latest completed run of a benchmark, in the order
            # ``evals.selectors.runs.latest_completed_runs`` writes.
            models.Index(
                models.F("benchmark"),
                Coalesce("completed_at", "started_at").desc(),
                models.F("run_id").desc(),
                condition=Q(status="completed"),
                name="run_latest_completed_idx",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(passed_cases__lte=models.F("total_cases")),
                name="run_passed_le_total",
            ),
        ]

    def __str__(self) -> str:
        return self.run_id

    def get_absolute_url(self) -> str:
        return reverse("evals:run-detail", args=[self.run_id])

    @property
    def pass_rate(self) -> float:
        return self.passed_cases / self.total_cases if self.total_cases else 0.0

    @property
    def source_label(self) -> str:
        """Where the run came from, in words: a run made here is a gridworld
        batch when its benchmark is a gridworld configuration."""
        if (
            self.source == self.Source.HARNESS
            and self.benchmark.kind == Benchmark.Kind.GRIDWORLD
        ):
            return "gridworld batch"
        return self.get_source_display()


class CaseResult(models.Model):
    """One case (scenario) of a run: pass/fail and the artifact it came from."""

    # Indexed by uniq_case_per_run, whose first column serves every lookup
    # by run the plain foreign-key index served.
    run = models.ForeignKey(
        Run, on_delete=models.CASCADE, related_name="case_results", db_index=False
    )
    case_id = models.CharField(max_length=200)
    passed = models.BooleanField()
    error = models.TextField(blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    # Filter columns of the comparison pages (suite scenarios fill them).
    stimulus_kind = models.CharField(max_length=64, blank=True)
    affordance = models.CharField(max_length=32, blank=True)
    tags = models.JSONField(default=list, blank=True)
    # The scenario artifact (EV-C4) or the posted case result.
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "case_id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "case_id"], name="uniq_case_per_run")
        ]
        # Compare's counts, flips and ranking read the outcome with the key,
        # from the index alone (an index-only scan on PostgreSQL).
        indexes = [
            models.Index(
                fields=["run", "case_id", "passed"], name="case_run_case_passed_idx"
            )
        ]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.case_id}"


class ShadowRecord(models.Model):
    """A shadow recall record of the eval-store contract (no raw prompt or memory
    text)."""

    trace_id = models.CharField(max_length=200, unique=True)
    recorded_at = models.DateTimeField()
    # Indexed by shadow_day_newest_idx, which leads with it.
    day = models.DateField()
    document = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-recorded_at"]
        indexes = [
            # Keyset pages of the shadow list, of all records or of one day.
            models.Index(fields=["-recorded_at", "-id"], name="shadow_newest_idx"),
            models.Index(
                fields=["day", "-recorded_at", "-id"], name="shadow_day_newest_idx"
            ),
        ]

    def __str__(self) -> str:
        return self.trace_id


class BaselineSnapshot(models.Model):
    snapshot_id = models.CharField(max_length=200, unique=True)
    created_at = models.DateTimeField()
    source_root_dir = models.CharField(max_length=1000, blank=True)
    notes = models.TextField(blank=True)
    document = models.JSONField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="baseline_snapshots",
    )
    # The API key (agent name) that stored it, when one did.
    created_by_key = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.snapshot_id

    def get_absolute_url(self) -> str:
        return reverse("evals:baseline-detail", args=[self.snapshot_id])


class InvalidUpload(models.Model):
    """An upload that failed validation, kept with its errors for staff review."""

    class Kind(models.TextChoices):
        MANIFEST = "manifest"
        RUN = "run"
        SHADOW = "shadow"
        BASELINE = "baseline"

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        REJECTED = "rejected"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    filename = models.CharField(max_length=500, blank=True)
    # The document as received (JSON text), or the archive's manifest text.
    raw = models.TextField()
    errors = models.JSONField(default=list)
    # len(errors), so a list of uploads need not read them (an invalid
    # manifest can have hundreds of thousands).
    error_count = models.PositiveIntegerField(default=0, verbose_name="errors")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="invalid_uploads",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reviewed_uploads",
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.filename or self.pk} ({self.status})"


class PackFile(models.Model):
    """An extra file of a pack, or of an upload kept for review (one owner).

    The bytes live in the pack file store (``PACK_FILES_DIR``) under their
    SHA-256; the row holds the name, size and digest, so listing packs never
    reads a file.
    """

    benchmark = models.ForeignKey(
        Benchmark,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="files",
    )
    upload = models.ForeignKey(
        InvalidUpload,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="files",
    )
    path = models.CharField(max_length=2048)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64, db_index=True)

    class Meta:
        ordering = ["path"]
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark", "path"], name="uniq_pack_file_path"
            ),
            models.UniqueConstraint(
                fields=["upload", "path"], name="uniq_upload_file_path"
            ),
            models.CheckConstraint(
                condition=Q(benchmark__isnull=True) ^ Q(upload__isnull=True),
                name="pack_file_one_owner",
            ),
        ]

    def __str__(self) -> str:
        return self.path


class RunIdempotencyKey(models.Model):
    """The ``Idempotency-Key`` a run was started with: one run per key and
    key holder (an API key or a signed-in user), so a retried or concurrent
    start returns the first run instead of making another."""

    holder = models.CharField(max_length=80)
    key = models.CharField(max_length=255)
    # sha256 of the request body: the same key with another body is refused.
    fingerprint = models.CharField(max_length=64)
    run = models.OneToOneField(
        Run, on_delete=models.CASCADE, related_name="idempotency_key"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["holder", "key"], name="uniq_idempotency_key_per_holder"
            )
        ]

    def __str__(self) -> str:
        return f"{self.holder} {self.key}"
