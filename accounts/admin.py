from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from accounts.models import ApiKey, AuditEntry


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "prefix",
        "owner",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = ("revoked_at",)
    search_fields = ("name", "prefix", "owner__username")
    readonly_fields = ("prefix", "key_hash", "created_at", "last_used_at")


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """Read only: the log is written by the services that do the actions."""

    list_display = ("at", "actor_label", "action", "target_label", "remote_addr")
    list_filter = ("action",)
    search_fields = ("actor_label", "target_label", "target_id")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
