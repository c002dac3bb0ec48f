"""Django admin of traces: the price table, editable; spans and score
exports, read-only.

A price table is edited with its rules inline (in order: the first rule
that matches a model wins). Which table is active is changed with the
"Make active" action, never by ticking a box, so two tables are never
active at once; saving any table makes this process read the prices again
(``traces.services.pricing.prices_forget``). Spans and score exports come
in through ingestion and the export queue: the admin only shows them, with
filters that need no scan of the spans table.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core.errors import CoreError
from traces.models import PriceRule, PriceTable, ScoreExport, Span
from traces.services.pricing import price_table_activate, prices_forget


class PriceRuleInline(admin.TabularInline):
    model = PriceRule
    extra = 1
    ordering = ("position", "pk")
    fields = (
        "position",
        "pattern",
        "provider",
        "input_per_mtok",
        "output_per_mtok",
        "cached_input_per_mtok",
        "cache_write_per_mtok",
        "effective_from",
        "effective_to",
    )


@admin.register(PriceTable)
class PriceTableAdmin(admin.ModelAdmin):
    list_display = ("version", "active", "source", "rule_count", "created_at")
    list_filter = ("active", "source")
    search_fields = ("version",)
    readonly_fields = ("active", "created_at")
    fields = ("version", "source", "active", "notes", "created_at")
    inlines = (PriceRuleInline,)
    actions = ("make_active",)

    @admin.display(description="rules")
    def rule_count(self, table: PriceTable) -> int:
        return table.rules.count()

    @admin.action(description="Make the selected table the active one")
    def make_active(self, request: HttpRequest, queryset: QuerySet[PriceTable]) -> None:
        chosen = list(queryset[:2])
        if len(chosen) != 1:
            self.message_user(
                request, "Select exactly one price table.", level=messages.ERROR
            )
            return
        try:
            table = price_table_activate(chosen[0].pk)
        except CoreError as error:
            self.message_user(request, error.message, level=messages.ERROR)
            return
        self.message_user(
            request, f"Price table {table.version} is now the active one."
        )

    def save_related(
        self, request: HttpRequest, form: Any, formsets: Any, change: bool
    ) -> None:
        super().save_related(request, form, formsets, change)
        prices_forget()

    def delete_model(self, request: HttpRequest, obj: PriceTable) -> None:
        super().delete_model(request, obj)
        prices_forget()


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Span)
class SpanAdmin(ReadOnlyAdmin):
    list_display = (
        "started_at",
        "name",
        "source",
        "agent",
        "request_model",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "cost_source",
        "latency_ms",
        "status",
    )
    # Filters on fields with choices (and the time): none of them needs a
    # DISTINCT over the spans table, the largest one evalsite keeps.
    list_filter = (
        "source",
        "cost_source",
        "status",
        ("started_at", admin.DateFieldListFilter),
    )
    search_fields = ("=trace_id", "=span_id", "=request_model", "=run_ref")
    list_select_related = ("agent",)
    show_full_result_count = False
    ordering = ("-started_at", "-pk")


@admin.register(ScoreExport)
class ScoreExportAdmin(ReadOnlyAdmin):
    list_display = ("run_ref", "status", "attempts", "created_at", "sent_at")
    list_filter = ("status",)
    search_fields = ("=run_ref",)
