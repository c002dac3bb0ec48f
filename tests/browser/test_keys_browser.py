"""Agents and keys in a real Chromium: staff make an agent and a key for it
in the browser, copy the key shown once, call the API with it, revoke it
(asked first) and the same call is refused; the audit log lists all of it.
Every page fits a phone's width. Screenshots at 1280 and 390 px go to the
test artifacts (``browser/keys-*.png``)."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import ApiKey, AuditEntry
from tests.browser.browser_support import page_overflows
from tests.browser.conftest import PHONE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def whoami(page: Any, base: str, key: str) -> Any:
    return page.request.get(
        f"{base}/api/whoami", headers={"Authorization": f"Bearer {key}"}
    )


def test_staff_make_a_key_in_the_browser_use_it_and_revoke_it(
    page: Any, live_server: Any, staff: Any, log_in: Any, screenshot: Any
) -> None:
    base = live_server.url
    log_in("staff", "pw-staff")
    page.goto(f"{base}/agents/")
    page.fill("input[name=name]", "scout")
    page.click("button:has-text('Create agent')")
    assert page.locator("#new-key-value").is_visible()
    screenshot("keys-agent-made")

    # A second, named key that may read benchmarks, shown once.
    page.fill("input[name=name]", "ci")
    page.uncheck("input[name=scopes][value=stream]")
    page.check("input[name=scopes][value='benchmarks:read']")
    page.click("button:has-text('Create key')")
    key = page.locator("#new-key-value").inner_text().strip()
    assert key.startswith("es_")
    assert "only time the key is shown" in page.locator("#new-key").inner_text()
    page.click("button:has-text('Copy key')")
    page.wait_for_function(
        "document.getElementById('copy-status').textContent.length > 0"
    )
    screenshot("keys-key-made")

    answer = whoami(page, base, key)
    assert answer.status == 200
    assert answer.json() == {"user": "staff", "agent": "scout"}
    packs = page.request.get(
        f"{base}/api/benchmarks/packs", headers={"Authorization": f"Bearer {key}"}
    )
    assert packs.status == 200

    # Shown once: the agent's page, opened again, no longer has it.
    page.goto(f"{base}/agents/scout/")
    assert page.locator("#new-key-value").count() == 0
    assert key not in page.content()
    row = page.locator("tbody tr", has_text="ci")
    assert "never" not in row.locator("td").nth(6).inner_text()  # last used

    row.locator("a:has-text('Revoke')").click()
    page.wait_for_url(f"{base}/agents/scout/keys/*/revoke")
    screenshot("keys-revoke-asked")
    # Asked, not done yet.
    assert whoami(page, base, key).status == 200
    page.click("button:has-text('Yes, revoke it')")
    page.wait_for_url(f"{base}/agents/scout/")
    assert "revoked" in page.locator("tbody tr", has_text="ci").inner_text()

    refused = whoami(page, base, key)
    assert refused.status == 401
    assert refused.json()["error"]["message"] == "Invalid or revoked API key."
    assert ApiKey.objects.get(name="ci").revoked_at is not None

    page.goto(f"{base}/agents/")
    assert (
        page.locator("tbody tr", has_text="scout").locator("td").nth(2).inner_text()
        == "1"
    )
    screenshot("keys-agents-list")

    page.goto(f"{base}/audit/")
    table = page.locator("main table").first.inner_text()
    for what in ("agent created", "key created", "key revoked", "scout / ci"):
        assert what in table
    assert list(AuditEntry.objects.values_list("action", flat=True)) == [
        "key.revoke",
        "key.create",
        "agent.create",
    ]
    screenshot("keys-audit-log")

    page.set_viewport_size(PHONE)
    for path in ("/agents/", "/agents/scout/", "/audit/"):
        page.goto(f"{base}{path}")
        assert not page_overflows(page), path
    assert page.js_errors == []
