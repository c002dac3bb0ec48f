"""What the browser tests share beyond their fixtures: whether a page is
wider than its window (a phone would scroll it sideways)."""

from __future__ import annotations

from typing import Any


def page_overflows(page: Any) -> bool:
    """True when the page's content is wider than the page's window."""
    return bool(
        page.evaluate(
            "document.scrollingElement.scrollWidth > "
            "document.scrollingElement.clientWidth"
        )
    )
