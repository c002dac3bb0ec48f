"""Persistence of PR keepalive: repositories under keepalive, their PRs, the
webhook deliveries received, every dispatch decision and every round.

No rules here. The one invariant the database enforces itself is the
dispatch lock: a round row is unique per (repository, activation comment,
round number), so two deliveries of the same activation racing on two
workers create one round, and the loser reports ``lock-held``.
"""

from __future__ import annotations

from django.db import models


class Repository(models.Model):
    """A GitHub repository whose PRs evalsite keeps alive.

    Secrets are never stored: ``token_ref`` / ``human_token_ref`` and
    ``webhook_secret_ref`` name environment variables (or ``*_FILE``) that
    hold them.
    """

    class DispatchMode(models.TextChoices):
        WORKFLOW_DISPATCH = "workflow_dispatch", "workflow_dispatch"
        REPOSITORY_DISPATCH = "repository_dispatch", "repository_dispatch"

    class InstructionToken(models.TextChoices):
        HUMAN = "human", "the person's token"
        BOT = "bot", "the automation bot's token"

    full_name = models.CharField(max_length=200, unique=True)
    is_active = models.BooleanField(default=True)
    installation_id = models.BigIntegerField(null=True, blank=True)
    token_ref = models.CharField(max_length=100, default="PRKEEPALIVE_BOT_TOKEN")
    human_token_ref = models.CharField(
        max_length=100, blank=True, default="PRKEEPALIVE_HUMAN_TOKEN"
    )
    instruction_token = models.CharField(
        max_length=10, choices=InstructionToken.choices, default=InstructionToken.HUMAN
    )
    webhook_secret_ref = models.CharField(max_length=100, blank=True, default="")
    agent_aliases = models.JSONField(default=list, blank=True)
    allowed_authors = models.JSONField(default=list, blank=True)
    automation_logins = models.JSONField(default=list, blank=True)
    gate_workflow = models.CharField(max_length=100, default="Gate")
    worker_workflow = models.CharField(max_length=100, default="Agents worker")
    dispatch_mode = models.CharField(
        max_length=30,
        choices=DispatchMode.choices,
        default=DispatchMode.WORKFLOW_DISPATCH,
    )
    dispatch_workflow = models.CharField(max_length=200, default="agents-worker.yml")
    dispatch_ref = models.CharField(max_length=200, default="main")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("full_name",)
        verbose_name_plural = "repositories"

    def __str__(self) -> str:
        return self.full_name


class PullRequest(models.Model):
    """What evalsite last saw of a PR (refreshed on every decision)."""

    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="pulls"
    )
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=300, blank=True, default="")
    head_sha = models.CharField(max_length=64, blank=True, default="")
    labels = models.JSONField(default=list, blank=True)
    is_open = models.BooleanField(default=True)
    last_processed_instruction_id = models.BigIntegerField(null=True, blank=True)
    last_processed_head_sha = models.CharField(max_length=64, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("repository", "-number")
        constraints = [
            models.UniqueConstraint(
                fields=("repository", "number"), name="prk_pull_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.repository.full_name}#{self.number}"


class Delivery(models.Model):
    """One webhook delivery, by GitHub's ``X-GitHub-Delivery`` GUID.

    ``retrying``: processing failed and the worker tries again (``retry_at``);
    ``failed``: it gave up (a redelivery from GitHub queues it again).
    ``replayed``: a new GUID repeating the event and body of a delivery
    received within ``PRKEEPALIVE_REPLAY_WINDOW_S``; recorded, never run.
    A ``queued`` delivery with ``retry_at`` set was stored while the task
    queue was unreachable; the reconciler queues it (``error`` says so).
    ``pull_number`` is the PR the event names, so its page can show it;
    ``digest`` is SHA-256 of the event name and the raw body.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        PROCESSING = "processing"
        HANDLED = "handled"
        IGNORED = "ignored"
        RETRYING = "retrying"
        FAILED = "failed"
        REPLAYED = "replayed"

    guid = models.CharField(max_length=100, unique=True)
    event = models.CharField(max_length=50)
    action = models.CharField(max_length=50, blank=True, default="")
    repository = models.ForeignKey(
        Repository,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="deliveries",
    )
    pull_number = models.PositiveIntegerField(null=True, blank=True)
    payload = models.JSONField(default=dict)
    digest = models.CharField(max_length=64, blank=True, default="")
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.QUEUED
    )
    reason = models.CharField(max_length=300, blank=True, default="")
    error = models.TextField(blank=True, default="")
    attempts = models.PositiveIntegerField(default=0)
    retry_at = models.DateTimeField(null=True, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-received_at",)
        indexes = [
            models.Index(fields=("status", "updated_at")),
            models.Index(fields=("repository", "pull_number", "status")),
            models.Index(fields=("digest", "received_at")),
        ]
        verbose_name_plural = "deliveries"

    def __str__(self) -> str:
        return f"{self.event} {self.guid}"


class Decision(models.Model):
    """One dispatch decision with every input it used and its DISPATCH line."""

    class Source(models.TextChoices):
        WEBHOOK = "webhook"
        RECONCILER = "reconciler"

    pull = models.ForeignKey(
        PullRequest,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="decisions",
    )
    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="decisions"
    )
    delivery = models.ForeignKey(
        Delivery,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="decisions",
    )
    source = models.CharField(
        max_length=20, choices=Source.choices, default=Source.WEBHOOK
    )
    lane = models.CharField(max_length=10)
    ok = models.BooleanField()
    reason = models.CharField(max_length=40)
    detail = models.CharField(max_length=400, blank=True, default="")
    activation_comment_id = models.BigIntegerField(null=True, blank=True)
    agent = models.CharField(max_length=100, blank=True, default="")
    head_sha = models.CharField(max_length=64, blank=True, default="")
    cap = models.PositiveSmallIntegerField()
    active = models.PositiveSmallIntegerField()
    trace = models.CharField(max_length=100, blank=True, default="")
    inputs = models.JSONField(default=dict)
    line = models.CharField(max_length=400)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ("-created_at", "-pk")

    def __str__(self) -> str:
        return self.line


class Round(models.Model):
    """One orchestrator round; its row is the dispatch lock."""

    class Status(models.TextChoices):
        LOCKED = "locked"
        RUNNING = "running"
        SKIPPED = "skipped"
        FAILED = "failed"
        DONE = "done"
        LOCK_HELD = "lock-held"

    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="rounds"
    )
    pull = models.ForeignKey(
        PullRequest, on_delete=models.CASCADE, related_name="rounds"
    )
    decision = models.OneToOneField(
        Decision, null=True, blank=True, on_delete=models.SET_NULL, related_name="round"
    )
    activation_comment_id = models.BigIntegerField()
    number = models.PositiveIntegerField()
    trace = models.CharField(max_length=100)
    agent = models.CharField(max_length=100, blank=True, default="")
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.LOCKED
    )
    instruction_comment_id = models.BigIntegerField(null=True, blank=True)
    instruction_author = models.CharField(max_length=100, blank=True, default="")
    head_before = models.CharField(max_length=64, blank=True, default="")
    head_after = models.CharField(max_length=64, blank=True, default="")
    instruction_line = models.CharField(max_length=400, blank=True, default="")
    worker_line = models.CharField(max_length=400, blank=True, default="")
    sync_line = models.CharField(max_length=400, blank=True, default="")
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-pk")
        constraints = [
            models.UniqueConstraint(
                fields=("repository", "activation_comment_id", "number"),
                name="prk_round_lock",
            )
        ]

    def __str__(self) -> str:
        return f"{self.pull} round {self.number} ({self.trace})"

    @property
    def lines(self) -> list[str]:
        return [
            x for x in (self.instruction_line, self.worker_line, self.sync_line) if x
        ]
