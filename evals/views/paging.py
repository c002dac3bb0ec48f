"""Keyset paging as the evals pages show it: read a page from the request's
``after``/``before`` (a cursor no page wrote reads as the first page, as a
page number out of range does), and the links to the pages around it that
keep the page's filters."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.http import HttpRequest
from django.utils.http import urlencode

from evals.core.keyset import CursorError
from evals.selectors.keyset_pages import Page


def page_from(request: HttpRequest, read: Callable[..., Page[Any]]) -> Page[Any]:
    """``read(after=..., before=...)`` with the request's cursors; the first
    page when they are not cursors of this list."""
    after = request.GET.get("after", "")
    before = "" if after else request.GET.get("before", "")
    try:
        return read(after=after, before=before)
    except CursorError:
        return read(after="", before="")


def page_links(
    page: Page[Any], kept: Sequence[tuple[str, str]], *, anchor: str = ""
) -> dict[str, str]:
    """The URLs of the page below (``next_url``), above (``previous_url``)
    and of the first page (``first_url``, only when not on it), each with
    the ``kept`` query parameters; "" where there is no such page."""
    tail = f"#{anchor}" if anchor else ""

    def url(extra: list[tuple[str, str]]) -> str:
        return "?" + urlencode([*kept, *extra]) + tail

    return {
        "next_url": url([("after", page.next_after)]) if page.next_after else "",
        "previous_url": url([("before", page.previous_before)])
        if page.previous_before
        else "",
        "first_url": "" if page.is_first else url([]),
    }
