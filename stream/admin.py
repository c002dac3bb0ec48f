from django.contrib import admin

from stream.models import Agent


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "is_active", "created_at", "last_seen_at")
    list_filter = ("is_active",)
    search_fields = ("name", "owner__username")
    readonly_fields = ("key_prefix", "key_hash", "created_at", "last_seen_at")
    filter_horizontal = ("members",)
