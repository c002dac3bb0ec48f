"""Spans (model calls, tool calls, agent steps) and the price table.

A span links to a thought, a run or a scenario result by id
(``thought_ref``, ``run_ref``, ``case_ref``), never by foreign key: the
stream prunes thoughts and runs get deleted, and neither should have to
touch this table, which is the largest one evalsite keeps. The agent is a
foreign key because its spans go with it.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from traces.core.records import COST_SOURCES, SOURCES, STATUS_UNSET, STATUSES


class PriceTable(models.Model):
    """One version of the price table; spans record the version that priced them."""

    version = models.CharField(max_length=64, unique=True)
    # Where it came from: the file shipped in the repo, or made in the admin.
    source = models.CharField(max_length=16, default="admin")
    active = models.BooleanField(default=False)
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["active"],
                condition=models.Q(active=True),
                name="price_table_one_active",
            )
        ]

    def __str__(self) -> str:
        return f"price table {self.version}" + (" (active)" if self.active else "")


class PriceRule(models.Model):
    """A price per 1M tokens for the models whose id matches ``pattern``.

    ``pattern`` is a shell-style glob (``gpt-4o-mini*``) matched against the
    response model, else the request model; the first rule by ``position``
    that matches and whose dates cover the span's start wins.
    """

    table = models.ForeignKey(
        PriceTable, on_delete=models.CASCADE, related_name="rules"
    )
    position = models.PositiveIntegerField(default=0)
    pattern = models.CharField(max_length=200)
    # Empty matches every provider.
    provider = models.CharField(max_length=64, blank=True)
    input_per_mtok = models.DecimalField(max_digits=14, decimal_places=6)
    output_per_mtok = models.DecimalField(max_digits=14, decimal_places=6)
    cached_input_per_mtok = models.DecimalField(
        max_digits=14, decimal_places=6, null=True, blank=True
    )
    cache_write_per_mtok = models.DecimalField(
        max_digits=14, decimal_places=6, null=True, blank=True
    )
    effective_from = models.DateField(null=True, blank=True)
    effective_to = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["table", "position", "pk"]

    def __str__(self) -> str:
        return f"{self.pattern} ({self.table.version})"


class Span(models.Model):
    trace_id = models.CharField(max_length=32)
    span_id = models.CharField(max_length=16)
    parent_span_id = models.CharField(max_length=16, blank=True)
    name = models.CharField(max_length=300)
    kind = models.CharField(max_length=16, default="internal")
    source = models.CharField(max_length=16, choices=[(s, s) for s in SOURCES])
    agent = models.ForeignKey(
        "stream.Agent",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="spans",
        db_index=False,
    )
    # gen_ai.operation.name: chat, execute_tool, invoke_agent, embeddings, ...
    operation = models.CharField(max_length=64, blank=True)
    provider = models.CharField(max_length=64, blank=True)
    request_model = models.CharField(max_length=200, blank=True)
    response_model = models.CharField(max_length=200, blank=True)
    # temperature, top_p, max_tokens, seed, ... as sent.
    request_params = models.JSONField(default=dict, blank=True)
    # NULL is "not reported", never 0.
    input_tokens = models.BigIntegerField(null=True, blank=True)
    output_tokens = models.BigIntegerField(null=True, blank=True)
    cached_input_tokens = models.BigIntegerField(null=True, blank=True)
    cache_write_tokens = models.BigIntegerField(null=True, blank=True)
    reasoning_tokens = models.BigIntegerField(null=True, blank=True)
    cost_usd = models.DecimalField(
        max_digits=20, decimal_places=10, null=True, blank=True
    )
    cost_source = models.CharField(
        max_length=16, blank=True, choices=[(c, c or "none") for c in COST_SOURCES]
    )
    price_version = models.CharField(max_length=64, blank=True)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField()
    latency_ms = models.FloatField(null=True, blank=True)
    ttft_ms = models.FloatField(null=True, blank=True)
    finish_reason = models.CharField(max_length=64, blank=True)
    retries = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(
        max_length=8, default=STATUS_UNSET, choices=[(s, s) for s in STATUSES]
    )
    error = models.TextField(blank=True)
    conversation_id = models.CharField(max_length=200, blank=True)
    tool_name = models.CharField(max_length=200, blank=True)
    # Links by id (see the module docstring).
    thought_ref = models.BigIntegerField(null=True, blank=True)
    run_ref = models.CharField(max_length=200, blank=True)
    case_ref = models.CharField(max_length=300, blank=True)
    # Every other attribute the span carried, and its events.
    attributes = models.JSONField(default=dict, blank=True)
    events = models.JSONField(default=list, blank=True)
    received_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-started_at", "-pk"]
        constraints = [
            # A resent span (an exporter's retry) is stored once.
            models.UniqueConstraint(
                fields=["trace_id", "span_id"], name="span_trace_span_unique"
            ),
        ]
        indexes = [
            # Time-range scans and retention's batched deletes.
            models.Index(fields=["started_at"], name="span_started_idx"),
            models.Index(fields=["agent", "-started_at"], name="span_agent_time_idx"),
            models.Index(
                fields=["run_ref", "case_ref"],
                condition=~models.Q(run_ref=""),
                name="span_run_case_idx",
            ),
            models.Index(
                fields=["thought_ref"],
                condition=models.Q(thought_ref__isnull=False),
                name="span_thought_idx",
            ),
            models.Index(
                fields=["request_model"],
                condition=models.Q(cost_source="unknown"),
                name="span_unpriced_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"span {self.span_id} of trace {self.trace_id} ({self.name})"


class ScoreExport(models.Model):
    """A finished run's scores waiting to go out as OTLP evaluation events.

    The queue is bounded (``OTLP_EXPORT_QUEUE_MAX`` pending rows): when it is
    full the oldest pending export is marked dropped, never silently lost.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        SENT = "sent"
        FAILED = "failed"  # gave up after the retries
        DROPPED = "dropped"  # pushed out of a full queue

    run_ref = models.CharField(max_length=200)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=models.Q(status="pending"),
                name="score_export_pending_idx",
            )
        ]

    def __str__(self) -> str:
        return f"export of {self.run_ref} ({self.status})"
