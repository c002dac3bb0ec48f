from django.contrib import admin

from evalsite.models import WorkerHeartbeat


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ("source", "hostname", "pid", "last_seen_at", "beats")
    readonly_fields = ("source", "hostname", "pid", "last_seen_at", "beats")
