"""The audit log's "To what" column links to the page of what was changed:
the agent, the key, the baseline or the pack; a target whose id names no
page is shown as plain text, never an error."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.audit import audit_record

pytestmark = pytest.mark.django_db


def _record(action: str, kind: str, ident: object, label: str) -> None:
    audit_record(action=action, target_type=kind, target_id=ident, target_label=label)


def _body(page: Any) -> str:
    return page.content.decode().split("<tbody>")[1].split("</tbody>")[0]


@pytest.mark.parametrize(
    ("action", "kind", "ident", "label", "href"),
    [
        ("agent.create", "agent", 7, "scout", "/agents/scout/"),
        ("key.revoke", "key", 12, "scout / ci", "/agents/scout/keys/12/"),
        ("baseline.replace", "baseline", "main", "main", "/baselines/main/"),
        ("pack.replace", "pack", "calendar", "calendar", "/benchmarks/calendar/"),
    ],
)
def test_the_target_links_to_its_page(
    staff_client: Client, action: str, kind: str, ident: Any, label: str, href: str
) -> None:
    _record(action, kind, ident, label)

    body = _body(staff_client.get("/audit/"))

    assert f'<a href="{href}">{label}</a>' in body


@pytest.mark.parametrize(
    ("kind", "ident", "label"),
    [
        ("key", "not-a-number", "scout / ci"),
        ("key", 3, "no separator"),
        ("agent", 1, "has space/and slash"),
        ("baseline", "a/b", "a/b"),
        ("something", 1, "else"),
    ],
)
def test_a_target_naming_no_page_is_plain_text(
    staff_client: Client, kind: str, ident: Any, label: str
) -> None:
    _record("agent.create", kind, ident, label)

    page = staff_client.get("/audit/")

    assert page.status_code == 200
    body = _body(page)
    assert label in body and "<a " not in body
