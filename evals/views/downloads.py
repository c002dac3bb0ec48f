"""The one way a page answers with a download: an ``Export`` (built in the
core) as an HTTP response, and the dispatch from ``?format=`` to a builder."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django.http import HttpRequest, HttpResponse

from evals.core.exports import Export


def export_response(export: Export) -> HttpResponse:
    response = HttpResponse(export.body, content_type=export.media_type)
    response["Content-Disposition"] = (
        f'{export.disposition}; filename="{export.filename}"'
    )
    return response


def download(
    request: HttpRequest, builders: Mapping[str, Callable[[], Export]]
) -> HttpResponse | None:
    """The response of the builder ``?format=`` names; None for a format no
    builder serves (the page itself)."""
    builder = builders.get(request.GET.get("format", ""))
    return export_response(builder()) if builder is not None else None
