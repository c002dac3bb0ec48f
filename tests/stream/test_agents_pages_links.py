"""The agent pages link to the audit log's entries about the agent and
about each key, and those entries are what the link shows."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from accounts.models import ApiKey
from core.scopes import STREAM

pytestmark = pytest.mark.django_db


def _link(page: str, anchor_id: str) -> str:
    found = re.search(rf'id="{anchor_id}" href="([^"]+)"', page)
    assert found, page[:3000]
    return html.unescape(found.group(1))


def test_the_agent_page_links_to_the_changes_to_the_agent_and_its_keys(
    owner_client: Client, owner: Any
) -> None:
    owner_client.post("/agents/", {"name": "scout", "scopes": [STREAM]})
    owner_client.post("/agents/scout/", {"name": "ci", "scopes": [STREAM]})
    owner_client.post("/agents/", {"name": "other", "scopes": [STREAM]})

    page = owner_client.get("/agents/scout/").content.decode()
    link = _link(page, "agent-audit")
    log = owner_client.get(link).content.decode()

    assert link == "/audit/?target=scout"
    assert "scout / ci" in log
    assert "other" not in log.split("<tbody>")[1]


def test_the_key_page_links_to_the_changes_to_that_key(
    owner_client: Client, owner: Any
) -> None:
    owner_client.post("/agents/", {"name": "scout", "scopes": [STREAM]})
    owner_client.post("/agents/scout/", {"name": "ci laptop", "scopes": [STREAM]})
    key = ApiKey.objects.get(name="ci laptop")

    page = owner_client.get(f"/agents/scout/keys/{key.pk}/").content.decode()
    link = _link(page, "key-audit")
    rows = owner_client.get(link).content.decode().split("<tbody>")[1]

    assert link == "/audit/?target=scout%20/%20ci%20laptop"
    assert "scout / ci laptop" in rows
    assert rows.count('data-label="When"') == 1  # one entry
