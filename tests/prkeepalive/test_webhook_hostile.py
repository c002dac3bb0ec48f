"""Hostile webhook deliveries: nothing is parsed before the signature is
checked, a signed body gets the API's JSON rules, and no answer is a server
error. Every case has one expected answer, the same on SQLite and Postgres
(run this module with DATABASE_URL=postgres://... too)."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from typing import Any

import pytest
from conftest import SECRET, WEBHOOK
from django.db import connection
from django.test import Client

from prkeepalive.models import Decision, Delivery
from prkeepalive.services.intake import sign
from tests.api_errors import error_fields
from tests.hostile import HOSTILE_NUMBERS, HOSTILE_STRINGS, hostile_bodies

pytestmark = pytest.mark.django_db

COMMENT = {
    "action": "created",
    "repository": {"full_name": "acme/widgets"},
    "issue": {"number": 41, "pull_request": {"url": "x"}},
    "comment": {
        "id": 7,
        "body": "@codex please continue",
        "user": {"login": "alice", "type": "User"},
        "created_at": "2026-01-01T00:00:00Z",
        "reactions": {},
    },
}


def post_raw(
    client: Client,
    body: bytes,
    *,
    event: str = "issue_comment",
    guid: str | None = None,
    signature: str | None = None,
) -> Any:
    return client.generic(
        "POST",
        WEBHOOK,
        body,
        content_type="application/json",
        HTTP_X_GITHUB_EVENT=event,
        HTTP_X_GITHUB_DELIVERY=guid or str(uuid.uuid4()),
        HTTP_X_HUB_SIGNATURE_256=sign(SECRET, body) if signature is None else signature,
    )


def nested(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


def with_value(path: tuple[str, ...], raw_value: str) -> bytes:
    """The comment payload with the value at ``path`` written as raw JSON."""
    marker = "@@value@@"
    document = json.loads(json.dumps(COMMENT))
    target = document
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = marker
    return json.dumps(document).replace(f'"{marker}"', raw_value).encode()


UNSIGNED_BODIES = {
    "deep-nesting": nested(10_000),
    "repository-not-object": json.dumps({**COMMENT, "repository": [1]}).encode(),
    "nul-in-full-name": with_value(("repository", "full_name"), '"acme\\u0000"'),
    "surrogate-in-full-name": with_value(("repository", "full_name"), '"\\ud800"'),
    "not-json": b"\xff\xfe{",
}


@pytest.mark.parametrize("label", sorted(UNSIGNED_BODIES))
@pytest.mark.parametrize(
    "signature", ["", "sha256=" + "0" * 64, "sha256=\u00e9t\u00e9"]
)
def test_unsigned_hostile_body_is_401_before_parsing_and_stores_nothing(
    github: Any, repo: Any, client: Client, label: str, signature: str
) -> None:
    response = post_raw(client, UNSIGNED_BODIES[label], signature=signature)
    assert response.status_code == 401, response.content
    assert response.json()["error"]["code"] == "bad_signature"
    assert error_fields(response) == {
        "header:X-Hub-Signature-256": ["missing or wrong"]
    }
    assert Delivery.objects.count() == 0


def test_non_ascii_signature_header_is_401_not_500(
    github: Any, repo: Any, client: Client
) -> None:
    body = json.dumps(COMMENT).encode()
    good = sign(SECRET, body)
    for header in (good[:-1] + "\u00e9", "sha256=\u0663" * 8, "\u202e" + good):
        response = post_raw(client, body, signature=header)
        assert response.status_code == 401, header
    assert Delivery.objects.count() == 0 and github.state.requests == []


SIGNED_REFUSALS: dict[str, tuple[bytes, dict[str, list[str]]]] = {
    "deep-nesting": (nested(10_000), {"$": ["JSON nests deeper than 32 levels."]}),
    "nul-in-full-name": (
        with_value(("repository", "full_name"), '"acme\\u0000"'),
        {"$.repository.full_name": ["value contains a NUL character (\\u0000)"]},
    ),
    "surrogate-in-full-name": (
        with_value(("repository", "full_name"), '"\\ud800"'),
        {"$.repository.full_name": ["value contains a lone surrogate (\\ud800)"]},
    ),
    "nul-in-comment": (
        with_value(("comment", "body"), '"@codex \\u0000"'),
        {"$.comment.body": ["value contains a NUL character (\\u0000)"]},
    ),
    "surrogate-in-comment": (
        with_value(("comment", "body"), '"\\udfff"'),
        {"$.comment.body": ["value contains a lone surrogate (\\udfff)"]},
    ),
    "nan": (
        with_value(("issue", "number"), "NaN"),
        {"$": ["Malformed JSON: NaN is not a JSON number"]},
    ),
    "overflow-1e400": (
        with_value(("issue", "number"), "1e400"),
        {"$.issue.number": ["number is not finite"]},
    ),
    "integer-past-64-bits": (
        with_value(("comment", "id"), "9" * 30),
        {"$.comment.id": ["integer is out of range (64-bit signed)"]},
    ),
    "not-utf-8": (
        b'{"action": "\xff"}',
        {"$": ["Request body is not UTF-8 (byte 12); JSON must be UTF-8."]},
    ),
    "not-an-object": (b"[1, 2]", {"$": ["must be a JSON object"]}),
}


@pytest.mark.parametrize("label", sorted(SIGNED_REFUSALS))
def test_signed_hostile_body_is_400_naming_the_field_and_stores_nothing(
    github: Any, repo: Any, client: Client, label: str
) -> None:
    body, fields = SIGNED_REFUSALS[label]
    response = post_raw(client, body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "invalid"
    assert error_fields(response) == fields
    assert Delivery.objects.count() == 0 and github.state.requests == []


def test_repository_that_is_not_an_object_is_ignored_as_none_named(
    github: Any, repo: Any, client: Client
) -> None:
    body = json.dumps({**COMMENT, "repository": "acme/widgets"}).encode()
    response = post_raw(client, body, guid="g-1")
    assert response.status_code == 202
    assert response.json() == {
        "status": "ignored",
        "reason": "the repository (none named) is not registered for keepalive",
        "delivery": "g-1",
    }


@pytest.mark.parametrize(
    ("guid", "event", "fields"),
    [
        (
            "g" * 101,
            "issue_comment",
            {"header:X-GitHub-Delivery": ["is longer than 100 characters"]},
        ),
        ("g-1", "e" * 51, {"header:X-GitHub-Event": ["is longer than 50 characters"]}),
        (
            "g 1",
            "issue_comment",
            {"header:X-GitHub-Delivery": ["must be letters, digits and - . _ :"]},
        ),
        (
            "g-1",
            "Issue Comment",
            {"header:X-GitHub-Event": ["must be lower-case letters, digits, _"]},
        ),
        (
            "g-\u00e9",
            "issue_comment",
            {"header:X-GitHub-Delivery": ["must be letters, digits and - . _ :"]},
        ),
        (
            "",
            "",
            {
                "header:X-GitHub-Delivery": ["is required"],
                "header:X-GitHub-Event": ["is required"],
            },
        ),
    ],
)
def test_guid_and_event_headers_past_their_columns_are_400_not_500(
    github: Any, repo: Any, client: Client, guid: str, event: str, fields: Any
) -> None:
    body = json.dumps(COMMENT).encode()
    response = client.generic(
        "POST",
        WEBHOOK,
        body,
        content_type="application/json",
        HTTP_X_GITHUB_EVENT=event,
        HTTP_X_GITHUB_DELIVERY=guid,
        HTTP_X_HUB_SIGNATURE_256=sign(SECRET, body),
    )
    assert response.status_code == 400, response.content
    assert error_fields(response) == fields
    assert Delivery.objects.count() == 0


def test_very_long_action_is_ignored_with_a_reason_that_fits(
    github: Any, repo: Any, client: Client
) -> None:
    body = json.dumps({**COMMENT, "action": "x" * 100_000}).encode()
    response = post_raw(client, body, guid="long-action")
    assert response.status_code == 202, response.content
    reason = response.json()["reason"]
    assert reason.startswith("issue_comment action xxx") and len(reason) <= 300
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.action, delivery.reason) == (
        Delivery.Status.IGNORED,
        "x" * 50,
        reason,
    )


def test_very_long_unregistered_repository_name_is_ignored_with_a_reason_that_fits(
    github: Any, repo: Any, client: Client
) -> None:
    body = json.dumps(
        {**COMMENT, "repository": {"full_name": "o/" + "r" * 5000}}
    ).encode()
    response = post_raw(client, body)
    assert response.status_code == 202, response.content
    assert len(Delivery.objects.get().reason) <= 300


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in leaves(v, (*path, k))]
    return [path]


# Slow by design: every hostile value at every leaf, each a signed delivery.
def test_hostile_corpus_on_the_webhook_gets_no_server_error(
    settings: Any, github: Any, repo: Any
) -> None:
    """Every leaf of a comment delivery replaced by each hostile value, and
    the corpus's whole bodies, signed and not: no 5xx, and a refusal (4xx)
    writes nothing."""
    client = Client(raise_request_exception=False)
    tally: Counter[str] = Counter()
    failures: list[str] = []
    cases: list[tuple[str, bytes]] = []
    for path in leaves(COMMENT):
        for label, value in [*HOSTILE_STRINGS, *HOSTILE_NUMBERS]:
            document = json.loads(json.dumps(COMMENT))
            target = document
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = value
            cases.append((f"{'.'.join(path)}={label}", json.dumps(document).encode()))
    cases += [
        (label, raw)
        for label, raw, _ in hostile_bodies(
            COMMENT, settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        )
    ]
    for label, raw in cases:
        for signed in (True, False):
            before = Delivery.objects.count(), Decision.objects.count()
            response = post_raw(client, raw, signature=None if signed else "sha256=00")
            tally[f"{'signed' if signed else 'unsigned'} {response.status_code}"] += 1
            if response.status_code >= 500:
                failures.append(f"{label} signed={signed}: {response.status_code}")
            elif response.status_code >= 400:
                if (Delivery.objects.count(), Decision.objects.count()) != before:
                    failures.append(f"{label} signed={signed}: wrote on refusal")
            elif not signed:
                failures.append(f"{label}: unsigned accepted")
    print(
        f"\nwebhook hostile corpus ({connection.vendor}): {dict(sorted(tally.items()))}"
    )
    assert not failures, "\n".join(failures[:40])
    # Only a body past the size limit is refused before the view (400).
    assert tally["unsigned 401"] == len(cases) - 1


def test_a_body_signed_with_another_repositorys_secret_is_401(
    settings: Any, github: Any, repo: Any, client: Client, monkeypatch: Any
) -> None:
    """Every configured secret is tried before parsing; the one that matched
    must then be the secret of the repository the body names."""
    from prkeepalive.models import Repository

    Repository.objects.create(full_name="acme/other", webhook_secret_ref="OTHER_HOOK")
    monkeypatch.setenv("OTHER_HOOK", "other-secret")
    other = json.dumps({**COMMENT, "repository": {"full_name": "acme/other"}}).encode()
    ours = json.dumps({**COMMENT, "action": "deleted"}).encode()

    crossed = post_raw(client, ours, signature=sign("other-secret", ours))
    assert crossed.status_code == 401
    assert crossed.json()["error"]["code"] == "bad_signature"
    global_for_other = post_raw(client, other, signature=sign(SECRET, other))
    assert global_for_other.status_code == 401
    assert Delivery.objects.count() == 0

    own = post_raw(client, other, signature=sign("other-secret", other))
    assert (own.status_code, own.json()["status"]) == (202, "queued")

    # Only a repository's secret configured: other repositories cannot verify.
    settings.PRKEEPALIVE_WEBHOOK_SECRET = ""
    unset = post_raw(client, ours, signature=sign("other-secret", ours))
    assert unset.status_code == 401
    assert unset.json()["error"]["code"] == "webhook_secret_unset"
