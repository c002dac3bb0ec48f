"""Django admin of PR keepalive: repositories are configured here; PRs,
deliveries, decisions and rounds are read-only records."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from prkeepalive.models import Decision, Delivery, PullRequest, Repository, Round


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Repository)
class RepositoryAdmin(admin.ModelAdmin):
    list_display = (
        "full_name",
        "is_active",
        "dispatch_mode",
        "gate_workflow",
        "worker_workflow",
    )
    list_filter = ("is_active", "dispatch_mode")
    search_fields = ("full_name",)


@admin.register(PullRequest)
class PullRequestAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "title", "head_sha", "is_open", "updated_at")
    list_filter = ("repository", "is_open")
    search_fields = ("title", "number")


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    list_display = (
        "guid",
        "event",
        "action",
        "pull_number",
        "status",
        "attempts",
        "received_at",
    )
    list_filter = ("status", "event", "repository")
    search_fields = ("guid",)


@admin.register(Decision)
class DecisionAdmin(ReadOnlyAdmin):
    list_display = ("line", "source", "reason", "created_at")
    list_filter = ("reason", "lane", "source", "repository")
    search_fields = ("line", "trace")


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "status", "instruction_comment_id", "created_at")
    list_filter = ("status", "repository")
    search_fields = ("trace",)
