from django.contrib import admin

from stream.models import Agent, Task, Thought


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "is_active", "created_at", "last_seen_at")
    list_filter = ("is_active",)
    search_fields = ("name", "owner__username")
    readonly_fields = ("api_key", "created_at", "last_seen_at")
    filter_horizontal = ("members",)


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = (
        "pk",
        "agent",
        "title",
        "status",
        "progress",
        "goal_key",
        "created_at",
    )
    list_filter = ("status",)
    search_fields = ("title", "goal_key", "agent__name")
    readonly_fields = [f.name for f in Task._meta.fields]


@admin.register(Thought)
class ThoughtAdmin(admin.ModelAdmin):
    list_display = (
        "pk",
        "agent",
        "type",
        "convert_eligible",
        "eligibility_reason",
        "processed",
        "created_at",
    )
    list_filter = ("type", "convert_eligible", "processed", "novelty")
    search_fields = ("content", "goal_key", "agent__name")
    readonly_fields = [f.name for f in Thought._meta.fields]
    # Newest first by key: ordering by created_at (the model's default) sorts
    # the whole table, which has no index on created_at alone.
    ordering = ("-pk",)
