"""The one way a page answers with a download: an ``Export`` (built in the
core) as an HTTP response, and the dispatch from ``?format=`` to a builder.
A download of any number of rows streams (``streamed_csv``): rows are read
a chunk at a time and written as they come, never held all at once."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from evals.core.exports import Export


def export_response(export: Export) -> HttpResponse:
    response = HttpResponse(export.body, content_type=export.media_type)
    response["Content-Disposition"] = (
        f'{export.disposition}; filename="{export.filename}"'
    )
    return response


class _Line:
    """A file whose ``write`` hands back what it was given."""

    def write(self, text: str) -> str:
        return text


def _csv_lines(rows: Iterable[Sequence[str]]) -> Iterator[bytes]:
    writer = csv.writer(_Line(), lineterminator="\n")
    for row in rows:
        yield str(writer.writerow(row)).encode()


def streamed_csv(rows: Iterable[Sequence[str]], filename: str) -> StreamingHttpResponse:
    """``rows`` as a CSV attachment (``\\n`` line ends, as ``csv_export``),
    written while they are read."""
    response = StreamingHttpResponse(
        _csv_lines(rows), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def download(
    request: HttpRequest,
    builders: Mapping[str, Callable[[], Export | HttpResponse | StreamingHttpResponse]],
) -> HttpResponse | StreamingHttpResponse | None:
    """The response of the builder ``?format=`` names; None for a format no
    builder serves (the page itself). A builder gives an ``Export`` or a
    response of its own (a streamed one)."""
    builder = builders.get(request.GET.get("format", ""))
    if builder is None:
        return None
    built = builder()
    if isinstance(built, Export):
        return export_response(built)
    return built
