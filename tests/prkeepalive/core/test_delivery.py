"""The webhook delivery rules that need no database."""

from __future__ import annotations

import hashlib

import pytest

from prkeepalive.core.delivery import (
    action_of,
    header_problems,
    payload_digest,
    signature_digest,
)

HEX = "ab" * 32


@pytest.mark.parametrize(
    ("header", "digest"),
    [
        (f"sha256={HEX}", bytes.fromhex(HEX)),
        (f" SHA256={HEX.upper()} ", bytes.fromhex(HEX)),
        ("", None),
        (f"sha1={HEX[:40]}", None),
        (f"sha256={HEX[:-1]}", None),
        (f"sha256={HEX[:-1]}\u00e9", None),
        ("sha256=" + "\u0663" * 64, None),
        (f"sha256={HEX}\x00", None),
    ],
)
def test_signature_digest_takes_only_githubs_shape(
    header: str, digest: bytes | None
) -> None:
    assert signature_digest(header) == digest


def test_header_problems_name_each_header() -> None:
    assert (
        header_problems(
            guid="72d3162e-cc78-11e3-81ab-4c9367dc0958", event="issue_comment"
        )
        == {}
    )
    assert header_problems(guid="g" * 101, event="e" * 51) == {
        "header:X-GitHub-Delivery": ["is longer than 100 characters"],
        "header:X-GitHub-Event": ["is longer than 50 characters"],
    }
    assert header_problems(guid="a\x00", event="x y") == {
        "header:X-GitHub-Delivery": ["must be letters, digits and - . _ :"],
        "header:X-GitHub-Event": ["must be lower-case letters, digits, _"],
    }


def test_payload_digest_covers_the_event_and_the_raw_bytes() -> None:
    body = b'{"a": 1}'
    assert payload_digest("push", body) == hashlib.sha256(b"push\n" + body).hexdigest()
    assert payload_digest("push", body) != payload_digest("create", body)
    assert payload_digest("push", body) != payload_digest("push", b'{"a":1}')


def test_action_of_keeps_text_cut_to_the_column() -> None:
    assert action_of({"action": "x" * 80}) == "x" * 50
    assert action_of({"action": 5}) == ""
    assert action_of({}) == ""
