"""Search documents, the indexer's watermarks, and saved searches.

A ``SearchDocument`` is one thing an agent said or a person wrote about it,
copied from its source app by the indexer (``search.services.indexer``) with
what the filters need. ``terms`` is its text as search terms
(``search.core.text``); the full-text index over them lives outside the
model's state, made by the migrations for the database in use: on
PostgreSQL a ``tsv`` tsvector column with a GIN index and a trigram GIN index
over ``terms``; on SQLite an FTS5 table ``search_fts`` kept in step with
triggers.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Kind(models.TextChoices):
    THOUGHT = "thought", "thought"
    SCENARIO_OUTPUT = "scenario_output", "scenario output"
    COMPLETION = "completion", "model completion"
    REVIEW_COMMENT = "review_comment", "review comment"
    KEEPALIVE_LINE = "keepalive_line", "keepalive decision"


class SearchDocument(models.Model):
    kind = models.CharField(max_length=24, choices=Kind.choices)
    # The source's id as its page and the review queues name it: a thought's
    # pk, "<run id>/<case id>", a decision's pk, a span's trace id...
    ref = models.CharField(max_length=420)
    # The review subject kind this document is about ('' for none): the
    # score filter and review queues match (subject, ref).
    # The source row's numeric id where it has one (retention's deletes are
    # followed by it).
    source_id = models.BigIntegerField(null=True, blank=True)
    subject = models.CharField(max_length=32, blank=True)
    subject_ref = models.CharField(max_length=420, blank=True)
    agent_id = models.BigIntegerField(null=True, blank=True)
    run_id = models.CharField(max_length=200, blank=True)
    suite_id = models.CharField(max_length=200, blank=True)
    # Review comments are seen by the queue's members only.
    queue_id = models.BigIntegerField(null=True, blank=True)
    eligible = models.BooleanField(null=True, blank=True)
    # Space-separated words with a space at each end: " ungrounded failed ".
    flags = models.CharField(max_length=200, blank=True, default="")
    title = models.CharField(max_length=300, blank=True)
    # The page it links to, where the link does not follow from kind and ref
    # (a thought's page is named by its agent's current name, found on read).
    link = models.CharField(max_length=500, blank=True)
    text = models.TextField()
    terms = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "ref"], name="search_doc_once"),
        ]
        indexes = [
            models.Index(fields=["-created_at", "-id"], name="search_doc_newest_idx"),
            models.Index(
                fields=["agent_id", "-created_at", "-id"],
                name="search_doc_agent_idx",
            ),
            models.Index(fields=["run_id"], name="search_doc_run_idx"),
            models.Index(fields=["kind", "source_id"], name="search_doc_source_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.ref}"


class Watermark(models.Model):
    """How far the indexer has read one source: its last id, or for sources
    whose rows change after they are written, the last change time."""

    source = models.CharField(max_length=40, unique=True)
    last_id = models.BigIntegerField(default=0)
    last_time = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.source} at {self.last_id}"


class SavedSearch(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    name = models.CharField(max_length=200)
    query = models.CharField(max_length=500)
    filters = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="saved_search_name"),
        ]

    def __str__(self) -> str:
        return self.name
