"""Template filters that keep server file paths off the pages.

``{{ run.artifacts_dir|shown_path }}`` shows a path relative to the
configured directory holding it; ``{{ run.error|scrub_paths }}`` removes
those directories from a message. See ``evalsite.paths``.
"""

from __future__ import annotations

from typing import Any

from django import template

from evalsite.paths import scrubbed, shown

register = template.Library()


@register.filter(name="shown_path")
def shown_path_filter(value: Any) -> str:
    return shown(value)


@register.filter(name="scrub_paths")
def scrub_paths_filter(value: Any) -> Any:
    return scrubbed(value)
