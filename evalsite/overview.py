"""The overview page's sections, registered by the apps.

The project knows no app: each app registers what it shows on the overview
from its ``AppConfig.ready()`` with ``register(Section(...))``. A section has
an optional tile fragment (inside the "At a glance" tiles, before the
service health tile), an optional body fragment (below the quick links),
quick links, and a function ``(request) -> dict`` whose keys its fragments
read. Sections render in ``order``. Registration is plain code: the app
passes its function, no dotted path is resolved at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

SectionContext = Callable[[HttpRequest], Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Link:
    """A quick link under the tiles: a button to the page ``url_name``."""

    label: str
    url_name: str
    primary: bool = False


@dataclass(frozen=True, slots=True)
class Section:
    key: str
    order: int
    context: SectionContext | None = None
    tiles: str | None = None
    body: str | None = None
    links: tuple[Link, ...] = ()


_sections: dict[str, Section] = {}


def register(section: Section) -> None:
    """Add (or replace, by ``key``) a section of the overview."""
    _sections[section.key] = section


def sections() -> list[Section]:
    """The registered sections in page order."""
    return sorted(_sections.values(), key=lambda section: (section.order, section.key))


def section_context(section: Section, request: HttpRequest) -> Mapping[str, Any]:
    """What the section's fragments read, from its registered function."""
    if section.context is None:
        return {}
    return section.context(request)


def overview_context(request: HttpRequest) -> dict[str, Any]:
    """The sections, their links and every section's values, for the page.

    Two sections may not provide the same name: one would hide the other's.
    """
    shown = sections()
    context: dict[str, Any] = {
        "overview_sections": shown,
        "overview_links": [link for section in shown for link in section.links],
    }
    owners: dict[str, str] = {}
    for section in shown:
        for name, value in section_context(section, request).items():
            if name in context:
                raise ValueError(
                    f"overview section {section.key!r} provides {name!r}, "
                    f"already provided by {owners.get(name, 'the page')!r}"
                )
            owners[name] = section.key
            context[name] = value
    return context
