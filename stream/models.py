"""Persistence of the cognitive stream: agents and what they publish."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from core.scopes import DEFAULT_SCOPES


def default_agent_scopes() -> list[str]:
    """The scopes migration 0005 gave the keys that existed before scopes
    (keys live in ``accounts`` now)."""
    return list(DEFAULT_SCOPES)


class Agent(models.Model):
    """An agent that streams into evalsite, authenticated by its API key
    (``accounts.ApiKey``: only the key's prefix and sha256 are stored; the
    key itself is shown once, when it is created)."""

    name = models.SlugField(max_length=64, unique=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_agents"
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="member_agents"
    )
    # The agent's API key (accounts): its prefix, hash and scopes.
    api_key = models.OneToOneField(
        "accounts.ApiKey", on_delete=models.PROTECT, related_name="agent"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class AgentKey(models.Model):
    """One of an agent's API keys. An agent may hold several named keys;
    each authenticates as the agent (``request.auth``). ``Agent.api_key`` is
    the key it was made with (or its latest rotation), listed here too."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="keys")
    api_key = models.OneToOneField(
        "accounts.ApiKey", on_delete=models.PROTECT, related_name="agent_key"
    )

    class Meta:
        ordering = ["agent", "api_key"]

    def __str__(self) -> str:
        return f"key {self.api_key_id} of agent {self.agent_id}"


class WorldSnapshot(models.Model):
    """An environmental_awareness event: what the agent perceived, as facts.

    ``facts`` is the frame wire document ``{"facts": {"bot", "world"}}`` that
    ``stream.core.frames.facts_from_wire`` reads.
    """

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="snapshots")
    facts = models.JSONField()
    content_hash = models.CharField(max_length=64)
    source = models.CharField(max_length=32, default="agent")
    received_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-received_at", "-pk"]
        indexes = [models.Index(fields=["agent", "-received_at"])]

    def __str__(self) -> str:
        return f"snapshot {self.pk} of {self.agent_id}"


class Thought(models.Model):
    """A cognitive stream entry (the stream contract definitions).

    Invariants held by constraints, not only by code: an empty goalKey is never
    stored, and ``convert_eligible`` implies a goal that passed grounding (KA-A8).
    """

    class Novelty(models.TextChoices):
        HIGH = "high"
        MEDIUM = "medium"
        LOW = "low"

    # Indexed by thought_agent_newest_idx, whose first column serves every
    # lookup by agent the plain foreign-key index served.
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, related_name="thoughts", db_index=False
    )
    type = models.CharField(max_length=64)
    content = models.TextField()
    content_hash = models.CharField(max_length=16)
    processed = models.BooleanField(default=False)
    processed_at = models.DateTimeField(null=True, blank=True)
    processed_by = models.CharField(max_length=200, blank=True)
    # None means "missing", which the actionable feed excludes like False.
    convert_eligible = models.BooleanField(null=True, default=False)
    eligibility_reason = models.CharField(max_length=200)
    grounding_passed = models.BooleanField(null=True)
    # NULL, never '', is "no goal key" (the agency contract §1.3; a constraint holds
    # it).
    goal_key = models.CharField(max_length=300, null=True, blank=True)  # noqa: DJ001
    novelty = models.CharField(
        max_length=8, choices=Novelty.choices, default=Novelty.HIGH
    )
    broadcast = models.BooleanField(default=True)
    source = models.CharField(max_length=32)
    eval_run_id = models.CharField(max_length=200, blank=True)
    metadata = models.JSONField(default=dict)
    # No index of its own: a B-tree on the time alone lured PostgreSQL into
    # walking every agent's thoughts for one agent's feed (migration 0011).
    # Reads by time go through the (agent, -created_at, -id) indexes below;
    # on PostgreSQL a BRIN index (migration 0012, outside the model's state)
    # bounds retention's sweeps across agents and cannot be walked in order.
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-pk"]
        # Partial indexes: each feed reads only its own rows, and the condition
        # is written as the ORM writes the feed's WHERE so SQLite can use it.
        indexes = [
            # An agent's newest thoughts: the publish's duplicate window reads
            # the newest few of every type, which without it meant sorting
            # all the agent's thoughts on every publish.
            models.Index(
                fields=["agent", "-created_at", "-id"], name="thought_agent_newest_idx"
            ),
            models.Index(
                fields=["agent", "-created_at", "-id"],
                condition=models.Q(processed=False, convert_eligible=True),
                name="thought_actionable_idx",
            ),
            models.Index(
                fields=["agent", "convert_eligible"],
                condition=models.Q(processed=False),
                name="thought_unprocessed_idx",
            ),
            models.Index(
                fields=["agent", "-created_at", "-id"],
                condition=models.Q(broadcast=True),
                name="thought_recent_idx",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(goal_key=""), name="thought_goal_key_not_empty"
            ),
            models.CheckConstraint(
                condition=~models.Q(convert_eligible=True)
                | (models.Q(grounding_passed=True) & models.Q(goal_key__isnull=False)),
                name="thought_eligible_requires_grounded_goal",
            ),
            models.CheckConstraint(
                condition=models.Q(processed=False)
                | models.Q(processed_at__isnull=False),
                name="thought_processed_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"thought {self.pk} ({self.type})"


class StreamEvent(models.Model):
    """An event for the agent's perception pipeline (e.g. a refresh request).

    The keep-alive loop asks for fresh perception only through here (KA-A6);
    the agent polls ``GET /api/cognitive-stream/events`` and answers with a
    percept.
    """

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="events")
    type = models.CharField(max_length=64)
    metadata = models.JSONField(default=dict)
    created_at = models.DateTimeField(db_index=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["agent", "delivered_at", "created_at"])]

    def __str__(self) -> str:
        return f"{self.type} for {self.agent_id}"


class AgencyCounters(models.Model):
    """Agency contract §5 counters of one agent: monotonic, reset only explicitly."""

    agent = models.OneToOneField(
        Agent, on_delete=models.CASCADE, related_name="counters"
    )
    llm_calls = models.PositiveBigIntegerField(default=0)
    goal_tags = models.PositiveBigIntegerField(default=0)
    drive_ticks = models.PositiveBigIntegerField(default=0)
    signature_suppressions = models.PositiveBigIntegerField(default=0)
    content_suppressions = models.PositiveBigIntegerField(default=0)
    intent_extractions = models.PositiveBigIntegerField(default=0)
    low_novelty_recorded = models.PositiveBigIntegerField(default=0)
    low_novelty_broadcast = models.PositiveBigIntegerField(default=0)
    started_at = models.DateTimeField()
    # Not a contract counter: at least as many thoughts as the agent holds,
    # so a publish that leaves it at or below the queue cap need not read
    # the queue (stream.services.retention). Every publish adds what it
    # stored; deletions leave it (too high is safe); an exact check sets it
    # to the queue's size. NULL: unknown, checked at the next publish.
    queue_held = models.BigIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"counters of {self.agent_id}"


class KeepAliveState(models.Model):
    """Where one agent's keep-alive loop stands (cooldown, last frame, pokes)."""

    agent = models.OneToOneField(
        Agent, on_delete=models.CASCADE, related_name="keepalive_state"
    )
    last_introspection_at = models.DateTimeField(null=True, blank=True)
    # The snapshot the last frame was built from: deltas are taken against it.
    last_frame_snapshot = models.ForeignKey(
        WorldSnapshot,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="keepalivestate_frames",
    )
    refresh_times_ms = models.JSONField(default=list)
    poke_pending = models.BooleanField(default=False)
    # Accepted eval pokes of the last minute (epoch ms): their rate limit.
    poke_times_ms = models.JSONField(default=list)
    # Set while a tick's model call is in flight (no transaction is open
    # then): any other tick of the agent, stimulus or poke, waits for it.
    introspecting_since = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"keep-alive state of {self.agent_id}"


class Task(models.Model):
    """A planning task: what an agent's executor claims and works on.

    Constraints hold the store's invariants even against buggy callers: at most
    one task per thought, goalKey never '' (the agency contract §1.3), status and
    progress in range, a blockedReason always comes with its blockedAt.
    ``origin_*`` are stamped at creation and never updated (the agency contract §1.2).
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        ACTIVE = "active"
        COMPLETED = "completed"
        FAILED = "failed"

    class OriginKind(models.TextChoices):
        EXECUTOR = "executor"
        COGNITION = "cognition"
        GOAL_RESOLVER = "goal_resolver"
        GOAL_SOURCE = "goal_source"
        API = "api"

    # Indexed by task_agent_newest_idx, whose first column serves every
    # lookup by agent the plain foreign-key index served.
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, related_name="tasks", db_index=False
    )
    # Retention may prune the thought; the task and its provenance stay.
    thought = models.ForeignKey(
        Thought,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tasks",
    )
    title = models.CharField(max_length=200)
    action = models.CharField(max_length=32)
    target = models.CharField(max_length=200, blank=True)
    amount = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    progress = models.FloatField(default=0.0)
    blocked_reason = models.CharField(max_length=200, blank=True)
    blocked_at = models.DateTimeField(null=True, blank=True)
    # NULL, never '', is "no goal key".
    goal_key = models.CharField(max_length=300, null=True, blank=True)  # noqa: DJ001
    origin_kind = models.CharField(
        max_length=16, choices=OriginKind.choices, blank=True
    )
    origin_name = models.CharField(max_length=100, blank=True)
    origin_parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="child_tasks",
    )
    metadata = models.JSONField(default=dict)
    claimed_by = models.CharField(max_length=200, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    failure_reason = models.CharField(max_length=500, blank=True)
    # No index of its own, as Thought.created_at: the claim and the task list
    # walk the agent's indexes below.
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(
                fields=["agent", "-created_at", "-id"], name="task_agent_newest_idx"
            ),
            # The claim's order to the last column (created_at, then id): with
            # created_at alone the planner preferred walking all the agent's
            # tasks in time order, finished ones included.
            models.Index(
                fields=["agent", "status", "created_at", "id"],
                name="task_queue_order_idx",
            ),
            models.Index(fields=["agent", "goal_key", "status"], name="task_goal_idx"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["thought"], name="task_one_per_thought"),
            models.CheckConstraint(
                condition=~models.Q(goal_key=""), name="task_goal_key_not_empty"
            ),
            models.CheckConstraint(
                condition=models.Q(
                    status__in=["pending", "active", "completed", "failed"]
                ),
                name="task_status_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(progress__gte=0.0) & models.Q(progress__lte=1.0),
                name="task_progress_fraction",
            ),
            models.CheckConstraint(
                condition=models.Q(blocked_reason="")
                | models.Q(blocked_at__isnull=False),
                name="task_blocked_has_time",
            ),
            models.CheckConstraint(
                condition=models.Q(origin_kind="")
                | models.Q(
                    origin_kind__in=[
                        "executor",
                        "cognition",
                        "goal_resolver",
                        "goal_source",
                        "api",
                    ]
                ),
                name="task_origin_kind_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"task {self.pk} ({self.status})"


class TaskEvent(models.Model):
    """One step in a task's life (created, claimed, progress, ...): the audit
    trail the task page and the soak checks read."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=32)
    status = models.CharField(max_length=16)
    progress = models.FloatField()
    actor = models.CharField(max_length=200, blank=True)
    detail = models.JSONField(default=dict)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["task", "created_at"])]

    def __str__(self) -> str:
        return f"{self.kind} of task {self.task_id}"


class PlanningState(models.Model):
    """Where one agent's planning stands: drive-tick timer, executor liveness."""

    agent = models.OneToOneField(
        Agent, on_delete=models.CASCADE, related_name="planning_state"
    )
    last_drive_tick_at = models.DateTimeField(null=True, blank=True)
    executor_seen_at = models.DateTimeField(null=True, blank=True)
    executor_name = models.CharField(max_length=200, blank=True)
    last_poll_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"planning state of {self.agent_id}"
