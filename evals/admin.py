"""Django admin of the evals app: staff review of invalid pack uploads, and
read-mostly views of benchmarks, runs, shadow records and snapshots.

Invalid uploads are listed with their errors (every JSON path and message)
and reviewed with three actions that call the services: re-validate (with
the flags as they are now), accept (only once it validates: it becomes a
pack) and reject. A pending upload's text may be corrected in the change
form ("accept after fix"); saving re-validates it, so the errors shown are
always those of the text shown. This is the one place a JSON document is
edited by hand: the alternative, asking the uploader to upload again, loses
the review trail. Everything else is read-only here; documents come in
through REST, the upload page and the commands, which validate them.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.html import format_html, format_html_join

from core.errors import CoreError, SchemaInvalid
from evals.models import (
    BaselineSnapshot,
    Benchmark,
    CaseResult,
    InvalidUpload,
    Run,
    ShadowRecord,
    SuiteVersion,
)
from evals.selectors.runs import run_config_shown
from evals.services.invalid_uploads import (
    invalid_upload_accept,
    invalid_upload_reject,
    invalid_upload_revalidate,
)
from evals.services.pack_files import pack_file_names, pack_owners_delete
from evalsite.paths import scrubbed, shown

# The review buttons of an upload's own page (its change form), beside Save.
ACCEPT_BUTTON = "_accept"
REJECT_BUTTON = "_reject"


def _pretty(document: Any) -> str:
    """A JSON document as indented text, with no server path in it."""
    return format_html(
        "<pre>{}</pre>", json.dumps(scrubbed(document), indent=2, ensure_ascii=False)
    )


class ReadOnlyAdmin(admin.ModelAdmin):
    """View and delete only: documents are written by the services."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class PackFilesDeletedToo(admin.ModelAdmin):
    """Deleting a benchmark or an upload also removes the stored files only
    it referred to."""

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        pack_owners_delete(type(obj).objects.filter(pk=obj.pk))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        pack_owners_delete(queryset)


@admin.register(InvalidUpload)
class InvalidUploadAdmin(PackFilesDeletedToo):
    list_display = (
        "pk",
        "kind",
        "filename",
        "status",
        "error_count",
        "uploaded_by",
        "created_at",
        "reviewed_by",
    )
    list_filter = ("status", "kind")
    list_select_related = ("uploaded_by", "reviewed_by")
    search_fields = ("filename", "raw")
    ordering = ("-created_at",)
    actions = ("revalidate", "accept", "reject")
    # Adds "Save and accept" and "Reject" to a pending upload's own page.
    change_form_template = "admin/evals/invalidupload/change_form.html"
    fields = (
        "kind",
        "filename",
        "status",
        "uploaded_by",
        "created_at",
        "reviewed_by",
        "reviewed_at",
        "error_table",
        "file_list",
        "raw",
    )
    # Everything but the raw text is read-only: staff fix an upload's text,
    # never its history.
    readonly_fields = tuple(name for name in fields if name != "raw")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        kwargs.setdefault("labels", {"raw": "Manifest text (JSON)"})
        return super().get_form(request, obj, change, **kwargs)

    def get_readonly_fields(
        self, request: HttpRequest, obj: InvalidUpload | None = None
    ) -> tuple[str, ...]:
        if obj is not None and obj.status != InvalidUpload.Status.PENDING:
            return (*self.readonly_fields, "raw")
        return self.readonly_fields

    @admin.display(description="errors (JSON path: problem)")
    def error_table(self, obj: InvalidUpload) -> str:
        if not obj.errors:
            return "none: it validates and can be accepted"
        return format_html(
            "<table><thead><tr><th>JSON path</th><th>problem</th><th>code</th>"
            "</tr></thead><tbody>{}</tbody></table>",
            format_html_join(
                "",
                "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td></tr>",
                (
                    (e.get("path", ""), e.get("message", ""), e.get("code", ""))
                    for e in obj.errors
                ),
            ),
        )

    @admin.display(description="extra pack files")
    def file_list(self, obj: InvalidUpload) -> str:
        names = pack_file_names(upload=obj)
        return ", ".join(names) if names else "none"

    def get_queryset(self, request: HttpRequest) -> QuerySet[InvalidUpload]:
        # The list never reads an upload's text or its errors (it shows their
        # count); an upload's own page reads them.
        return super().get_queryset(request).defer("raw", "errors")

    def save_model(
        self, request: HttpRequest, obj: InvalidUpload, form: Any, change: bool
    ) -> None:
        # The errors must always describe the text as saved.
        super().save_model(request, obj, form, change)
        problems = invalid_upload_revalidate(upload=obj)
        if ACCEPT_BUTTON in request.POST or REJECT_BUTTON in request.POST:
            return  # response_change says what the review did
        if problems:
            self.message_user(
                request,
                f"Upload {obj.pk} still has {len(problems)} problem(s).",
                messages.WARNING,
            )
        else:
            self.message_user(
                request, f"Upload {obj.pk} now validates: accept it to import it."
            )

    def response_change(self, request: HttpRequest, obj: InvalidUpload) -> HttpResponse:
        """After Save: "Save and accept" imports the upload as saved (a fixed
        text included), "Reject" closes it; both come back to its page."""
        if ACCEPT_BUTTON in request.POST:
            self.accept(request, InvalidUpload.objects.filter(pk=obj.pk))
        elif REJECT_BUTTON in request.POST:
            self.reject(request, InvalidUpload.objects.filter(pk=obj.pk))
        else:
            return super().response_change(request, obj)
        return HttpResponseRedirect(request.path)

    @admin.action(description="Re-validate selected uploads")
    def revalidate(
        self, request: HttpRequest, queryset: QuerySet[InvalidUpload]
    ) -> None:
        valid = invalid = 0
        for upload in queryset:
            try:
                problems = invalid_upload_revalidate(upload=upload)
            except CoreError as error:
                self.message_user(
                    request, f"Upload {upload.pk}: {error.message}", messages.ERROR
                )
                continue
            if problems:
                invalid += 1
            else:
                valid += 1
        self.message_user(
            request, f"Re-validated: {valid} now valid, {invalid} still invalid."
        )

    @admin.action(description="Accept selected uploads (only valid ones import)")
    def accept(self, request: HttpRequest, queryset: QuerySet[InvalidUpload]) -> None:
        for upload in queryset:
            try:
                result = invalid_upload_accept(upload=upload, reviewer=request.user)
            except SchemaInvalid as error:
                self.message_user(
                    request,
                    f"Upload {upload.pk} is still invalid "
                    f"({len(error.problems)} problem(s)); fix it first.",
                    messages.ERROR,
                )
            except CoreError as error:
                self.message_user(
                    request, f"Upload {upload.pk}: {error.message}", messages.ERROR
                )
            else:
                self.message_user(
                    request,
                    f"Upload {upload.pk} accepted: pack "
                    f"{result.benchmark.benchmark_id} {result.outcome}.",
                )

    @admin.action(description="Reject selected uploads")
    def reject(self, request: HttpRequest, queryset: QuerySet[InvalidUpload]) -> None:
        rejected = 0
        for upload in queryset:
            try:
                invalid_upload_reject(upload=upload, reviewer=request.user)
            except CoreError as error:
                self.message_user(
                    request, f"Upload {upload.pk}: {error.message}", messages.ERROR
                )
            else:
                rejected += 1
        self.message_user(request, f"Rejected {rejected} upload(s).")


@admin.register(Benchmark)
class BenchmarkAdmin(PackFilesDeletedToo, ReadOnlyAdmin):
    list_display = (
        "benchmark_id",
        "kind",
        "benchmark_type",
        "title",
        "case_count",
        "updated_at",
    )
    list_filter = ("kind", "benchmark_type")
    search_fields = ("benchmark_id", "title")

    @admin.display(description="manifest")
    def manifest_pretty(self, obj: Benchmark) -> str:
        return _pretty(obj.manifest)

    @admin.display(description="suite file")
    def suite_file(self, obj: Benchmark) -> str:
        return shown(obj.suite_path) or "none"

    @admin.display(description="extra pack files")
    def file_list(self, obj: Benchmark) -> str:
        return ", ".join(pack_file_names(benchmark=obj)) or "none"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Benchmark]:
        # The list never reads a manifest; a benchmark's own page reads it then.
        return super().get_queryset(request).defer("manifest")

    readonly_fields = ("manifest_pretty", "suite_file", "file_list")
    exclude = ("manifest", "suite_path")


class CaseResultInline(admin.TabularInline):
    model = CaseResult
    fields = ("case_id", "passed", "latency_ms", "error_shown")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="error")
    def error_shown(self, obj: CaseResult) -> str:
        return scrubbed(obj.error)


@admin.register(Run)
class RunAdmin(ReadOnlyAdmin):
    list_display = (
        "run_id",
        "benchmark",
        "status",
        "source",
        "passed_cases",
        "total_cases",
        "started_at",
        "completed_at",
    )
    list_filter = ("status", "source", "benchmark__kind")
    search_fields = ("run_id", "benchmark__benchmark_id", "git_ref")
    list_select_related = ("benchmark",)
    date_hierarchy = "started_at"
    inlines = (CaseResultInline,)
    # Where the server keeps a run's files is not for the page: the bundle
    # and the store file are shown relative to their directories, messages
    # and the configuration with those directories taken out.
    fields = (
        "run_id",
        "benchmark",
        "status",
        "source",
        "started_at",
        "completed_at",
        "total_cases",
        "passed_cases",
        "failed_cases",
        "verdict_passed",
        "failed_properties",
        "git_ref",
        "notes",
        "error_shown",
        "metrics_shown",
        "config_shown",
        "files_shown",
        "created_by",
    )
    readonly_fields = fields

    @admin.display(description="error")
    def error_shown(self, obj: Run) -> str:
        return scrubbed(obj.error) or "none"

    @admin.display(description="metrics")
    def metrics_shown(self, obj: Run) -> str:
        return _pretty(obj.metrics)

    @admin.display(description="configuration")
    def config_shown(self, obj: Run) -> str:
        return _pretty(run_config_shown(obj.config or {}))

    @admin.display(description="files")
    def files_shown(self, obj: Run) -> str:
        parts = []
        if obj.artifacts_dir:
            parts.append(
                f"bundle {shown(obj.artifacts_dir)}/ in the artifacts directory"
            )
        if obj.store_path:
            parts.append(f"eval store file {shown(obj.store_path)}")
        return "; ".join(parts) or "none"


@admin.register(ShadowRecord)
class ShadowRecordAdmin(ReadOnlyAdmin):
    list_display = ("trace_id", "recorded_at", "day")
    search_fields = ("trace_id",)
    date_hierarchy = "recorded_at"


@admin.register(BaselineSnapshot)
class BaselineSnapshotAdmin(ReadOnlyAdmin):
    list_display = ("snapshot_id", "created_at", "source", "created_by")
    search_fields = ("snapshot_id", "notes")

    exclude = ("source_root_dir", "document")
    readonly_fields = ("source", "document_shown")

    @admin.display(description="made from")
    def source(self, obj: BaselineSnapshot) -> str:
        return shown(obj.source_root_dir)

    @admin.display(description="snapshot")
    def document_shown(self, obj: BaselineSnapshot) -> str:
        return _pretty(obj.document)


@admin.register(SuiteVersion)
class SuiteVersionAdmin(ReadOnlyAdmin):
    list_display = ("benchmark", "suite_sha256", "line_count", "first_seen_at")
    list_select_related = ("benchmark",)
