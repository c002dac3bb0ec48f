"""Django admin of the reviews: score configs, queues with their reviewers,
items and assignments, scores with their history.

Scores and their revisions are read-only here: a score is given or edited
through a queue or the REST API, which keep the history; the admin only
shows them.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from reviews.models import (
    QueueMember,
    ReviewAssignment,
    ReviewItem,
    ReviewQueue,
    Score,
    ScoreConfig,
    ScoreConfigAttachment,
    ScoreRevision,
)


@admin.register(ScoreConfig)
class ScoreConfigAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "kind", "is_current", "created_at")
    list_filter = ("kind", "is_current")
    search_fields = ("name",)
    readonly_fields = ("created_by", "created_at")


@admin.register(ScoreConfigAttachment)
class ScoreConfigAttachmentAdmin(admin.ModelAdmin):
    list_display = ("config_name", "benchmark_id", "created_at")
    search_fields = ("config_name", "benchmark_id")


class QueueMemberInline(admin.TabularInline):
    model = QueueMember
    extra = 1
    raw_id_fields = ("user",)


@admin.register(ReviewQueue)
class ReviewQueueAdmin(admin.ModelAdmin):
    list_display = ("name", "assignment", "overlap_percent", "created_at")
    list_filter = ("assignment",)
    search_fields = ("name",)
    filter_horizontal = ("score_configs",)
    readonly_fields = ("created_by", "created_at")
    inlines = (QueueMemberInline,)


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = ("queue", "kind", "ref", "run_id", "reviewers_wanted", "origin")
    list_filter = ("kind", "origin")
    search_fields = ("ref", "run_id", "title")
    raw_id_fields = ("queue", "added_by")
    list_select_related = ("queue",)


@admin.register(ReviewAssignment)
class ReviewAssignmentAdmin(admin.ModelAdmin):
    list_display = ("item", "reviewer", "status", "assigned_at", "finished_at")
    list_filter = ("status",)
    raw_id_fields = ("item", "reviewer")
    list_select_related = ("item", "reviewer")


class ScoreRevisionInline(admin.TabularInline):
    model = ScoreRevision
    extra = 0
    can_delete = False
    fields = (
        "value_number",
        "value_label",
        "comment",
        "changed_by",
        "changed_by_key",
        "changed_at",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = (
        "config",
        "kind",
        "ref",
        "value_number",
        "value_label",
        "source",
        "author",
        "api_key",
        "updated_at",
    )
    list_filter = ("source", "kind")
    search_fields = ("ref", "run_id", "comment")
    list_select_related = ("config", "author", "api_key")
    inlines = (ScoreRevisionInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
