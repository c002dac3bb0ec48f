from django.contrib import admin

from accounts.models import ApiKey


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("name", "prefix", "owner", "created_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "prefix", "owner__username")
    readonly_fields = ("prefix", "key_hash", "created_at")
