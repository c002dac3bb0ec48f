"""Score configs, review queues, their items, who reviews what, and scores.

Persistence only; the rules (a value valid for its config, round robin,
overlap, agreement) are in ``reviews/core``, the use cases in
``reviews/services``.

What an item or a score is about is named by ``kind`` and ``ref`` (a
string id in the other app: ``<run_id>/<case_id>`` for a scenario result, a
thought's, an episode's or a keepalive decision's primary key), with the
agent and the run copied beside it for filtering and authorization. No
foreign key reaches into another app.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Subject(models.TextChoices):
    """What a review item or a score is about."""

    SCENARIO_RESULT = "scenario_result", "scenario result"
    THOUGHT = "thought", "thought"
    EPISODE = "episode", "gridworld episode"
    KEEPALIVE_DECISION = "keepalive_decision", "keepalive decision"


class ScoreConfig(models.Model):
    """One version of a score people give: a name (the metric is
    ``human.<name>``), its kind and what values it takes. Editing a config
    makes a new version; scores keep the version they were given under."""

    class Kind(models.TextChoices):
        NUMERIC = "numeric"
        CATEGORICAL = "categorical"
        BOOLEAN = "boolean"

    name = models.SlugField(max_length=64)
    version = models.PositiveIntegerField(default=1)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # numeric: the closed range a value must fall in
    min_value = models.FloatField(null=True, blank=True)
    max_value = models.FloatField(null=True, blank=True)
    # categorical: the labels, in the order the reviewer sees them (keys 1..9)
    labels = models.JSONField(default=list, blank=True)
    description = models.TextField(blank=True)
    rubric = models.TextField(blank=True)
    # The version new scores are given under; older versions stay readable.
    is_current = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["name", "version"], name="score_config_name_version"
            ),
            models.UniqueConstraint(
                fields=["name"],
                condition=Q(is_current=True),
                name="score_config_one_current",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class ScoreConfigAttachment(models.Model):
    """A score config attached to a benchmark (a scenario suite, a benchmark
    pack or a gridworld configuration: every one is a benchmark of evals),
    by the config's name (its current version applies) and the benchmark id."""

    config_name = models.SlugField(max_length=64)
    benchmark_id = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["benchmark_id", "config_name"]
        constraints = [
            models.UniqueConstraint(
                fields=["config_name", "benchmark_id"], name="score_attachment_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.config_name} -> {self.benchmark_id}"


class ReviewQueue(models.Model):
    class Assignment(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin"
        CLAIM = "claim", "claim next"

    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    # The configs (pinned versions) every item of the queue is scored on.
    score_configs = models.ManyToManyField(ScoreConfig, related_name="queues")
    assignment = models.CharField(
        max_length=16, choices=Assignment.choices, default=Assignment.ROUND_ROBIN
    )
    # The share of items a second reviewer also scores (agreement), 0..100.
    overlap_percent = models.PositiveSmallIntegerField(default=0)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="QueueMember", related_name="review_queues"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(overlap_percent__lte=100), name="queue_overlap_le_100"
            )
        ]

    def __str__(self) -> str:
        return self.name


class QueueMember(models.Model):
    queue = models.ForeignKey(ReviewQueue, on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["queue", "user"], name="queue_member_once")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.queue_id}"


class ReviewItem(models.Model):
    """One thing to review in a queue."""

    class Origin(models.TextChoices):
        HAND = "hand", "added by hand"
        COMPARE = "compare", "from a compare page selection"
        RULE = "rule", "by a rule"
        SEARCH = "search", "from a saved search"

    queue = models.ForeignKey(
        ReviewQueue, on_delete=models.CASCADE, related_name="items"
    )
    kind = models.CharField(max_length=32, choices=Subject.choices)
    ref = models.CharField(max_length=420)
    # Copied from the subject when the item is added: filters and who may see it.
    agent_id = models.BigIntegerField(null=True, blank=True)
    run_id = models.CharField(max_length=200, blank=True)
    # A short line shown in lists (the scenario id, the thought's first words).
    title = models.CharField(max_length=300, blank=True)
    # How many reviewers score it: 1, or 2 for the queue's overlap share.
    reviewers_wanted = models.PositiveSmallIntegerField(default=1)
    origin = models.CharField(
        max_length=16, choices=Origin.choices, default=Origin.HAND
    )
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["queue", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["queue", "kind", "ref"], name="review_item_once_per_queue"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.ref}"


class ReviewAssignment(models.Model):
    """An item given to a reviewer, and where the reviewer left it."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DONE = "done"
        SKIPPED = "skipped"
        SECOND_LOOK = "second_look", "needs a second look"

    item = models.ForeignKey(
        ReviewItem, on_delete=models.CASCADE, related_name="assignments"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    comment = models.TextField(blank=True)
    assigned_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["item", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "reviewer"], name="review_assignment_once"
            )
        ]
        indexes = [
            models.Index(
                fields=["reviewer", "status", "item"], name="assignment_todo_idx"
            )
        ]

    def __str__(self) -> str:
        return f"{self.item_id} -> {self.reviewer_id} ({self.status})"


class Score(models.Model):
    """A score given to a subject under one config version, by a person
    (``author``) or by an API key (an external judge). One score per giver,
    config name and subject; an edit changes it and keeps the old value in
    ``ScoreRevision``."""

    class Source(models.TextChoices):
        REVIEW = "review", "given in a review queue"
        API = "api", "posted over REST"

    config = models.ForeignKey(
        ScoreConfig, on_delete=models.PROTECT, related_name="scores"
    )
    kind = models.CharField(max_length=32, choices=Subject.choices)
    ref = models.CharField(max_length=420)
    agent_id = models.BigIntegerField(null=True, blank=True)
    run_id = models.CharField(max_length=200, blank=True)
    # The scenario result's case id (run_id + case_id = ref) for run metrics.
    case_id = models.CharField(max_length=200, blank=True)
    item = models.ForeignKey(
        ReviewItem,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="scores",
    )
    # numeric and boolean (0/1) scores
    value_number = models.FloatField(null=True, blank=True)
    # categorical scores (and "true"/"false" for boolean, for reading)
    value_label = models.CharField(max_length=200, blank=True)
    comment = models.TextField(blank=True)
    source = models.CharField(max_length=16, choices=Source.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="review_scores",
    )
    api_key = models.ForeignKey(
        "accounts.ApiKey",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="review_scores",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(author__isnull=False) | Q(api_key__isnull=False),
                name="score_has_a_giver",
            ),
            models.UniqueConstraint(
                fields=["config", "kind", "ref", "author"],
                condition=Q(author__isnull=False),
                name="score_once_per_author",
            ),
            models.UniqueConstraint(
                fields=["config", "kind", "ref", "api_key"],
                condition=Q(author__isnull=True),
                name="score_once_per_key",
            ),
        ]
        indexes = [
            models.Index(fields=["run_id", "config"], name="score_run_idx"),
            models.Index(fields=["kind", "ref"], name="score_subject_idx"),
        ]

    def __str__(self) -> str:
        value = self.value_label or self.value_number
        return f"{self.config_id} {self.kind}:{self.ref} = {value}"


class ScoreRevision(models.Model):
    """A score as it was before an edit: who changed it, when, from what."""

    score = models.ForeignKey(Score, on_delete=models.CASCADE, related_name="revisions")
    value_number = models.FloatField(null=True, blank=True)
    value_label = models.CharField(max_length=200, blank=True)
    comment = models.TextField(blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    changed_by_key = models.ForeignKey(
        "accounts.ApiKey",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["score", "-changed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.score_id} before {self.changed_at:%Y-%m-%d %H:%M}"
