"""Django admin of search: saved searches, and the documents read-only."""

from django.contrib import admin

from search.models import SavedSearch, SearchDocument


@admin.register(SavedSearch)
class SavedSearchAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "owner", "query", "created_at")
    search_fields = ("name", "query")


@admin.register(SearchDocument)
class SearchDocumentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("kind", "ref", "agent_id", "run_id", "created_at")
    list_filter = ("kind",)
    exclude = ("terms",)

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False
