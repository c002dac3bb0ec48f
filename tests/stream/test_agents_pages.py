"""The agents-and-keys pages: staff manage every agent, an owner their own;
a new key is shown once and works at once; bad input names its field and
stores nothing; a member or a stranger manages nothing."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiKey, AuditEntry
from core.scopes import BENCHMARKS_READ, SCOPES, STREAM
from stream.models import Agent, AgentKey
from stream.services.agents import agent_create, agent_key_create
from stream.views.agents_forms import SCOPE_DESCRIPTIONS
from tests.hostile import HOSTILE_STRINGS

pytestmark = pytest.mark.django_db

KEY = re.compile(r'<code id="new-key-value">(es_[0-9a-f]+_[\w-]+)</code>')


def new_key(answer: Any) -> str:
    found = KEY.search(answer.content.decode())
    assert found, answer.content.decode()[:2000]
    return found.group(1)


def whoami(key: str) -> Any:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client.get("/api/whoami")


def stored() -> tuple[int, int, int, int]:
    return (
        Agent.objects.count(),
        ApiKey.objects.count(),
        AgentKey.objects.count(),
        AuditEntry.objects.count(),
    )


def test_every_scope_has_a_one_line_description() -> None:
    assert set(SCOPE_DESCRIPTIONS) == set(SCOPES)
    assert all("\n" not in text and text for text in SCOPE_DESCRIPTIONS.values())


def test_staff_make_an_agent_for_an_owner_and_see_its_first_key_once(
    staff_client: Client, owner: Any
) -> None:
    answer = staff_client.post(
        "/agents/",
        {"name": "scout", "owner": "alice", "scopes": [STREAM, BENCHMARKS_READ]},
        HTTP_USER_AGENT="pytest-browser",
    )
    assert answer.status_code == 201
    assert answer["Cache-Control"].startswith("max-age=0")
    key = new_key(answer)
    agent = Agent.objects.get(name="scout")
    assert agent.owner == owner
    assert agent.api_key.scopes == [BENCHMARKS_READ, STREAM]
    assert whoami(key).json() == {"user": "alice", "agent": "scout"}
    # Shown once: the agent's page never shows it again.
    again = staff_client.get("/agents/scout/")
    assert again.status_code == 200
    assert key not in again.content.decode()
    assert agent.api_key.prefix in again.content.decode()
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.actor_label, entry.target_label) == (
        "agent.create",
        "staff",
        "scout",
    )
    assert (entry.target_owner, entry.user_agent) == (owner, "pytest-browser")
    assert entry.remote_addr == "127.0.0.1"
    assert entry.details == {
        "owner": "alice",
        "key": agent.api_key.prefix,
        "scopes": "benchmarks:read, stream",
    }


def test_an_owner_makes_a_named_key_with_scopes_and_an_expiry(
    owner_client: Client, owner: Any
) -> None:
    agent = agent_create(name="scout", owner=owner).agent
    expires = (timezone.now() + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M")
    answer = owner_client.post(
        "/agents/scout/",
        {"name": "ci", "scopes": [BENCHMARKS_READ], "expires_at": expires},
    )
    assert answer.status_code == 201
    key = new_key(answer)
    made = ApiKey.objects.get(agent_key__agent=agent, name="ci")
    assert made.scopes == [BENCHMARKS_READ]
    assert made.expires_at is not None
    assert made.expires_at.strftime("%Y-%m-%dT%H:%M") == expires
    assert whoami(key).json() == {"user": "alice", "agent": "scout"}
    page = owner_client.get("/agents/scout/").content.decode()
    assert "ci" in page and "never" in page  # last used: never, until it is
    entry = AuditEntry.objects.get(action="key.create")
    assert entry.actor_label == "alice" and entry.target_label == "scout / ci"


@pytest.mark.parametrize(
    ("form", "field", "reason"),
    [
        ({"name": "", "scopes": [STREAM]}, "name", "Give the key a name."),
        ({"name": "ci", "scopes": ["root"]}, "scopes", "root is not a scope."),
        ({"name": "ci"}, "scopes", "Choose at least one scope."),
        (
            {"name": "ci", "scopes": [STREAM], "expires_at": "2001-01-01T00:00"},
            "expires_at",
            "The expiry must be in the future.",
        ),
        (
            {"name": "ci", "scopes": [STREAM], "expires_at": "soon"},
            "expires_at",
            "Enter a date and time, e.g. 2030-01-31 12:00.",
        ),
    ],
)
def test_a_bad_key_form_names_the_field_and_stores_nothing(
    owner_client: Client, owner: Any, form: dict[str, Any], field: str, reason: str
) -> None:
    agent_create(name="scout", owner=owner)
    before = stored()
    answer = owner_client.post("/agents/scout/", form)
    assert answer.status_code == 400
    page = answer.content.decode()
    assert f'id="field-{field}"' in page
    section = page.split(f'id="field-{field}"', 1)[1].split('class="field"', 1)[0]
    assert reason in section
    assert 'id="new-key-value"' not in page
    assert stored() == before


@pytest.mark.parametrize(
    ("form", "field", "reason"),
    [
        ({"name": "scout", "scopes": [STREAM]}, "name", "already exists"),
        ({"name": "", "scopes": [STREAM]}, "name", "Give the agent a name."),
        ({"name": "a b", "scopes": [STREAM]}, "name", "Use only letters"),
        ({"name": "new", "scopes": ["root"]}, "scopes", "root is not a scope."),
        ({"name": "new", "scopes": [STREAM], "owner": "nobody"}, "owner", "No user"),
    ],
)
def test_a_bad_agent_form_names_the_field_and_stores_nothing(
    staff_client: Client, owner: Any, form: dict[str, Any], field: str, reason: str
) -> None:
    agent_create(name="scout", owner=owner)
    before = stored()
    answer = staff_client.post("/agents/", form)
    assert answer.status_code == 400
    page = answer.content.decode()
    section = page.split(f'id="field-{field}"', 1)[1].split('class="field"', 1)[0]
    assert reason in section
    assert stored() == before


def test_someone_not_staff_makes_agents_only_for_themselves(
    member_client: Client, member: Any, owner: Any
) -> None:
    answer = member_client.post(
        "/agents/", {"name": "mine", "owner": "alice", "scopes": [STREAM]}
    )
    assert answer.status_code == 201
    assert Agent.objects.get(name="mine").owner == member


def test_a_member_or_a_stranger_cannot_see_or_make_keys_of_someone_elses_agent(
    member_client: Client, stranger_client: Client, agent: Any
) -> None:
    before = stored()
    key_pk = agent.api_key.pk
    for client, code in ((member_client, 403), (stranger_client, 404)):
        assert client.get("/agents/alpha/").status_code == code
        made = client.post("/agents/alpha/", {"name": "x", "scopes": [STREAM]})
        assert made.status_code == code
        assert client.get(f"/agents/alpha/keys/{key_pk}/").status_code == code
        scoped = client.post(f"/agents/alpha/keys/{key_pk}/", {"scopes": SCOPES})
        assert scoped.status_code == code
        revoke = client.post(f"/agents/alpha/keys/{key_pk}/revoke")
        assert revoke.status_code == code
        rotate = client.post(f"/agents/alpha/keys/{key_pk}/rotate")
        assert rotate.status_code == code
        listed = client.get("/agents/").content.decode()
        assert "/agents/alpha/" not in listed
    assert stored() == before
    assert ApiKey.objects.get(pk=key_pk).revoked_at is None


def test_an_owner_cannot_reach_a_key_of_another_agent_through_their_own(
    owner_client: Client, owner: Any, stranger: Any
) -> None:
    agent_create(name="mine", owner=owner)
    theirs = agent_create(name="theirs", owner=stranger).agent
    pk = theirs.api_key.pk
    assert owner_client.get(f"/agents/mine/keys/{pk}/").status_code == 404
    assert owner_client.post(f"/agents/mine/keys/{pk}/revoke").status_code == 404
    assert ApiKey.objects.get(pk=pk).revoked_at is None


def test_revoking_asks_first_then_the_key_is_refused(
    owner_client: Client, owner: Any
) -> None:
    created = agent_create(name="scout", owner=owner)
    pk = created.agent.api_key.pk
    asked = owner_client.get(f"/agents/scout/keys/{pk}/revoke")
    assert asked.status_code == 200
    assert "Yes, revoke it" in asked.content.decode()
    assert whoami(created.api_key).status_code == 200
    done = owner_client.post(f"/agents/scout/keys/{pk}/revoke")
    assert done.status_code == 302 and done["Location"] == "/agents/scout/"
    assert whoami(created.api_key).status_code == 401
    assert AuditEntry.objects.filter(action="key.revoke").count() == 1
    # Revoking again changes and records nothing.
    owner_client.post(f"/agents/scout/keys/{pk}/revoke")
    assert AuditEntry.objects.filter(action="key.revoke").count() == 1


def test_changing_scopes_on_the_key_page_is_recorded_with_before_and_after(
    owner_client: Client, owner: Any
) -> None:
    created = agent_create(name="scout", owner=owner)
    second = agent_key_create(agent=created.agent, name="ci")
    url = f"/agents/scout/keys/{second.api_key.pk}/"
    bad = owner_client.post(url, {"scopes": ["root"]})
    assert bad.status_code == 400 and "root is not a scope." in bad.content.decode()
    assert ApiKey.objects.get(pk=second.api_key.pk).scopes == [STREAM]
    answer = owner_client.post(url, {"scopes": [STREAM, BENCHMARKS_READ]})
    assert answer.status_code == 200 and "Scopes saved" in answer.content.decode()
    assert ApiKey.objects.get(pk=second.api_key.pk).scopes == [BENCHMARKS_READ, STREAM]
    entry = AuditEntry.objects.get(action="key.scopes")
    assert entry.details == {
        "key": second.api_key.prefix,
        "before": "stream",
        "after": "benchmarks:read, stream",
    }


def test_the_pages_need_a_login_and_a_csrf_token(owner: Any) -> None:
    agent_create(name="scout", owner=owner)
    assert Client().get("/agents/").status_code == 302
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner)
    refused = strict.post("/agents/scout/", {"name": "ci", "scopes": [STREAM]})
    assert refused.status_code == 403
    assert ApiKey.objects.filter(name="ci").count() == 0


def test_a_name_taken_between_the_check_and_the_write_is_a_400_on_the_name(
    staff_client: Client, owner: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stream.views import agents_admin

    def taken_meanwhile(**kwargs: Any) -> Any:
        agent_create(name=kwargs["name"], owner=owner)
        return agent_create(**kwargs)

    monkeypatch.setattr(agents_admin, "agent_create", taken_meanwhile)
    answer = staff_client.post("/agents/", {"name": "scout", "scopes": [STREAM]})
    assert answer.status_code == 400
    page = answer.content.decode()
    section = page.split('id="field-name"', 1)[1].split('class="field"', 1)[0]
    assert "already exists" in section
    assert Agent.objects.filter(name="scout").count() == 1


def test_rotating_on_the_page_asks_first_then_shows_the_new_key_once(
    owner_client: Client, owner: Any
) -> None:
    created = agent_create(name="scout", owner=owner)
    second = agent_key_create(
        agent=created.agent,
        name="ci",
        scopes=[BENCHMARKS_READ],
        expires_at=timezone.now() + timedelta(days=3),
    )
    url = f"/agents/scout/keys/{second.api_key.pk}/rotate"
    asked = owner_client.get(url)
    assert asked.status_code == 200 and "Yes, rotate it" in asked.content.decode()
    assert whoami(second.key).status_code == 200
    answer = owner_client.post(url)
    assert answer.status_code == 201
    key = new_key(answer)
    assert whoami(second.key).status_code == 401
    assert whoami(key).json() == {"user": "alice", "agent": "scout"}
    new = ApiKey.objects.get(prefix=key.split("_")[1])
    assert (new.name, new.scopes, new.expires_at) == (
        "ci",
        [BENCHMARKS_READ],
        second.api_key.expires_at,
    )
    # The agent's first key is untouched and still its first.
    assert Agent.objects.get(name="scout").api_key_id == created.agent.api_key.pk
    entry = AuditEntry.objects.get(action="key.rotate")
    assert entry.details == {"old key": second.api_key.prefix, "new key": new.prefix}
    # A revoked key is not rotated again.
    again = owner_client.post(url)
    assert again.status_code == 200 and "nothing to rotate" in again.content.decode()
    assert AuditEntry.objects.filter(action="key.rotate").count() == 1


REFUSED_KEY_NAMES = {
    "nul",
    "bidi-override",
    "zero-width",
    "noncharacter",
    "control",
    "over-varchar",
    "over-file-name",
    "1MB",
    "100k-lines",
    "empty",
}


SENDABLE = [
    (label, value) for label, value in HOSTILE_STRINGS if label != "lone-surrogate"
]
SLUGS = {"nan-text", "infinity-text", "overflow-text"}


@pytest.mark.parametrize(("label", "value"), SENDABLE)
def test_a_hostile_key_or_agent_name_is_refused_on_its_field_or_stored_as_typed(
    staff_client: Client, owner: Any, label: str, value: str
) -> None:
    agent_create(name="scout", owner=owner)
    before = stored()
    key = staff_client.post("/agents/scout/", {"name": value, "scopes": [STREAM]})
    if label in REFUSED_KEY_NAMES:
        assert key.status_code == 400, label
        assert 'id="field-name"' in key.content.decode()
        assert stored() == before
    else:
        assert key.status_code == 201, label
        assert ApiKey.objects.filter(name=value).count() == 1
    before = stored()
    agent = staff_client.post("/agents/", {"name": value, "scopes": [STREAM]})
    # Only letters, digits, - and _ make an agent's name.
    if label in SLUGS:
        assert agent.status_code == 201, label
        assert Agent.objects.filter(name=value).count() == 1
    else:
        assert agent.status_code == 400, label
        assert stored() == before
