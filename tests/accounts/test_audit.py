"""The audit log: what writes it (agents and keys made, rescoped, rotated,
revoked; baselines and packs replaced; ``create_agent``), who it names and
from where, and who reads which entries on its page."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.test.utils import override_settings
from rest_framework.test import APIClient

from accounts.audit import (
    AuditOriginMiddleware,
    audit_origin,
    audit_record,
    command_line_actor,
)
from accounts.models import AuditEntry
from accounts.services import api_key_create
from core.scopes import BASELINES_WRITE, BENCHMARKS_REPLACE
from evals.examples import example_manifest
from evals.services.baselines import baseline_snapshot_create
from evals.services.benchmarks import benchmark_pack_create
from stream.services.agents import Actor, agent_create, agent_rotate_key
from tests.hostile import HOSTILE_STRINGS

pytestmark = pytest.mark.django_db


def rows(entries: Any) -> list[tuple[str, str, str]]:
    return [(e.action, e.actor_label, e.target_label) for e in entries]


def test_create_agent_writes_the_same_entry_as_the_page_naming_the_command_line(
    owner: Any,
) -> None:
    call_command("create_agent", "scout", "--owner", "alice", stdout=StringIO())
    entry = AuditEntry.objects.get()
    assert entry.action == "agent.create"
    assert entry.actor_label == command_line_actor()
    assert entry.actor_label.startswith("command line (")
    assert (entry.actor_user, entry.actor_key) == (None, None)
    assert (entry.target_type, entry.target_label, entry.target_owner) == (
        "agent",
        "scout",
        owner,
    )
    assert (entry.remote_addr, entry.user_agent) == ("", "command line")
    assert entry.details["scopes"] == "stream"


def test_the_agents_eval_runs_make_for_themselves_are_not_recorded(
    owner: Any,
) -> None:
    agent_create(name="eval-run-1", owner=owner, is_active=False)
    assert AuditEntry.objects.count() == 0


def test_rotating_a_key_is_recorded_with_the_old_and_new_key(owner: Any) -> None:
    created = agent_create(name="scout", owner=owner)
    old = created.agent.api_key.prefix
    agent_rotate_key(agent=created.agent, by=Actor(user=owner))
    entry = AuditEntry.objects.get()
    assert entry.action == "key.rotate" and entry.actor_user == owner
    assert entry.details == {
        "old key": old,
        "new key": created.agent.api_key.prefix,
    }


def test_a_replaced_baseline_is_recorded_with_the_key_that_replaced_it(
    settings: Any, owner: Any
) -> None:
    settings.BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = True
    key = api_key_create(name="ci", owner=owner, scopes=[BASELINES_WRITE]).api_key
    baseline_snapshot_create(snapshot_id="required-main", key=key)
    assert AuditEntry.objects.count() == 0  # made, not replaced
    baseline_snapshot_create(snapshot_id="required-main", notes="moved", key=key)
    entry = AuditEntry.objects.get()
    assert rows([entry]) == [
        ("baseline.replace", f"key ci ({key.prefix})", "required-main")
    ]
    assert (entry.actor_key, entry.actor_user, entry.target_owner) == (key, None, None)
    assert entry.details == {"benchmarks": "0", "notes": "moved"}


def test_a_pack_replaced_with_force_is_recorded_and_a_refused_one_is_not(
    staff: Any, owner: Any
) -> None:
    benchmark_pack_create(document=example_manifest(), user=staff)
    changed = example_manifest(cases=3)
    with pytest.raises(Exception, match="already exists"):
        benchmark_pack_create(document=changed, user=staff)
    assert AuditEntry.objects.count() == 0
    benchmark_pack_create(document=changed, force=True, user=staff)
    entry = AuditEntry.objects.get()
    assert rows([entry]) == [("pack.replace", "staff", "ama-memory")]
    assert entry.actor_user == staff and entry.target_type == "pack"
    key = api_key_create(name="ci", owner=owner, scopes=[BENCHMARKS_REPLACE]).api_key
    benchmark_pack_create(document=example_manifest(cases=4), force=True, key=key)
    assert AuditEntry.objects.order_by("-pk").first().actor_key == key


def test_the_origin_is_the_proxys_client_address_when_the_setting_names_it() -> None:
    factory = RequestFactory()
    request = factory.get(
        "/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9"
    )
    request.META["HTTP_USER_AGENT"] = "curl/8"
    assert audit_origin(request).remote_addr == "10.0.0.1"
    with override_settings(LOGIN_CLIENT_ADDRESS_HEADER="X-Forwarded-For"):
        origin = audit_origin(request)
    assert (origin.remote_addr, origin.user_agent) == ("203.0.113.9", "curl/8")


def test_the_middleware_gives_entries_written_deep_in_a_request_its_origin(
    owner: Any,
) -> None:
    request = RequestFactory().get(
        "/", REMOTE_ADDR="198.51.100.7", HTTP_USER_AGENT="ci-runner"
    )

    def view(_: Any) -> Any:
        audit_record(
            action="pack.replace",
            target_type="pack",
            target_id="p",
            target_label="p",
            user=owner,
        )
        return "done"

    assert AuditOriginMiddleware(view)(request) == "done"
    # Outside a request nothing is carried over.
    audit_record(
        action="pack.replace", target_type="pack", target_id="q", target_label="q"
    )
    inside, outside = AuditEntry.objects.order_by("pk")
    assert (inside.remote_addr, inside.user_agent) == ("198.51.100.7", "ci-runner")
    assert (outside.remote_addr, outside.user_agent, outside.actor_label) == (
        "",
        "",
        "system",
    )


def test_details_are_a_small_table_of_short_texts() -> None:
    entry = audit_record(
        action="key.scopes",
        target_type="key",
        target_id=1,
        target_label="k",
        details={"before": ["a", "b"], "after": [], "long": "x" * 500},
    )
    assert entry.details == {"before": "a, b", "after": "none", "long": "x" * 200}


@pytest.fixture
def log(owner: Any, stranger: Any, staff: Any) -> dict[str, Any]:
    """Entries about the owner's agent, the stranger's agent, and a pack."""
    mine = agent_create(name="mine", owner=owner, by=Actor(user=owner))
    agent_create(name="theirs", owner=stranger, by=Actor(user=staff))
    audit_record(
        action="pack.replace",
        target_type="pack",
        target_id="ama",
        target_label="ama",
        user=staff,
    )
    return {"mine": mine}


def page_rows(client: Client, query: str = "") -> list[str]:
    answer = client.get(f"/audit/{query}")
    assert answer.status_code == 200, answer.content[:500]
    return [e.target_label for e in answer.context["entries"]]


def test_staff_read_every_entry_and_an_owner_only_those_about_their_agents(
    log: Any, staff_client: Client, owner_client: Client, member_client: Client
) -> None:
    assert page_rows(staff_client) == ["ama", "theirs", "mine"]
    assert page_rows(owner_client) == ["mine"]
    assert page_rows(member_client) == []
    assert Client().get("/audit/").status_code == 302


def test_the_log_filters_by_action_actor_and_target(
    log: Any, staff_client: Client
) -> None:
    assert page_rows(staff_client, "?action=pack.replace") == ["ama"]
    assert page_rows(staff_client, "?actor=alice") == ["mine"]
    assert page_rows(staff_client, "?target=THEIR") == ["theirs"]
    assert page_rows(staff_client, "?action=agent.create&actor=staff") == ["theirs"]


def test_the_log_pages_by_key_older_entries_after_newer(
    staff: Any, staff_client: Client
) -> None:
    for n in range(55):
        audit_record(
            action="pack.replace",
            target_type="pack",
            target_id=str(n),
            target_label=f"pack-{n:02d}",
            user=staff,
        )
    first = staff_client.get("/audit/?action=pack.replace")
    labels = [e.target_label for e in first.context["entries"]]
    assert labels == [f"pack-{n:02d}" for n in range(54, 4, -1)]
    older = first.context["next_query"]
    assert "action=pack.replace" in older and "before=" in older
    second = [
        e.target_label for e in staff_client.get(f"/audit/?{older}").context["entries"]
    ]
    assert second == ["pack-04", "pack-03", "pack-02", "pack-01", "pack-00"]


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("?action=drop", "drop is not an action."),
        ("?before=abc", "Not a page of the log."),
        ("?before=0", "Page:"),
    ],
)
def test_a_bad_filter_is_a_400_that_says_why(
    log: Any, staff_client: Client, query: str, reason: str
) -> None:
    answer = staff_client.get(f"/audit/{query}")
    assert answer.status_code == 400
    assert reason in answer.content.decode()
    assert answer.context["entries"] == []


def test_an_api_key_request_reads_no_audit_page(log: Any) -> None:
    key = log["mine"].api_key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/audit/").status_code == 302


def test_staff_read_the_log_in_the_admin_but_nobody_edits_it(
    log: Any, staff_client: Client
) -> None:
    entry = AuditEntry.objects.first()
    assert staff_client.get("/admin/accounts/auditentry/").status_code == 200
    assert staff_client.get("/admin/accounts/auditentry/add/").status_code == 403
    delete = staff_client.post(
        f"/admin/accounts/auditentry/{entry.pk}/delete/", {"post": "yes"}
    )
    assert delete.status_code == 403
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


# A lone surrogate cannot be sent as UTF-8 at all: no client sends one.
SENDABLE = [
    (label, value) for label, value in HOSTILE_STRINGS[:12] if label != "lone-surrogate"
]


@pytest.mark.parametrize(("label", "value"), SENDABLE)
def test_a_hostile_filter_never_fails_the_log(
    log: Any, staff_client: Client, label: str, value: str
) -> None:
    for name in ("actor", "target", "action", "before"):
        answer = staff_client.get("/audit/", {name: value})
        assert answer.status_code in (200, 400), (label, name)
        if answer.status_code == 400 and "entries" in (answer.context or {}):
            # Refused by the form (a NUL is refused before any view).
            assert answer.context["entries"] == []
