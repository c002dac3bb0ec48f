"""Django admin of the gridworld: maps, batches and episodes are read-only
records (batches are started from the pages, the API or the CLI)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from gridworld.models import Episode, EpisodeBatch, GridMap


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(GridMap)
class GridMapAdmin(ReadOnlyAdmin):
    list_display = ("name", "width", "height", "digest", "created_at")
    search_fields = ("name", "digest")


@admin.register(EpisodeBatch)
class EpisodeBatchAdmin(ReadOnlyAdmin):
    list_display = (
        "pk",
        "run",
        "grid_map",
        "proposer",
        "governor",
        "episodes",
        "created_at",
    )
    list_filter = ("proposer", "governor")
    list_select_related = ("run", "grid_map")


@admin.register(Episode)
class EpisodeAdmin(ReadOnlyAdmin):
    list_display = ("batch", "index", "seed", "success", "steps", "safety_violations")
    list_filter = ("success",)
    exclude = ("receipt_gz",)
    list_select_related = ("batch",)
