"""Hostile receipts: POST verify and gridworld_verify refuse out-of-range
numbers and repeated keys with the path and the reason (400, exit 2) and never
answer 500; a stored receipt whose bytes changed or broke is reported as such
by the receipt API, the episode API and the episode page."""

from __future__ import annotations

import hashlib
import io
import json
import zlib
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from evals.services.runs.lifecycle import run_execute
from gridworld.core.episode import EpisodeConfig, canonical, run_episode
from gridworld.core.grid import standard_layout
from gridworld.models import Episode
from gridworld.services.batches import batch_create
from tests.api_errors import error_fields

pytestmark = pytest.mark.django_db

RECEIPT = run_episode(
    EpisodeConfig(map=standard_layout("simple"), seed=1, max_steps=2)
).receipt
TEXT = canonical(RECEIPT)


@pytest.fixture
def api(owner: Any) -> APIClient:
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(owner)
    return client


def post(api: APIClient, body: bytes) -> Any:
    return api.generic(
        "POST", "/api/gridworld/verify", body, content_type="application/json"
    )


def cli(tmp_path: Path, body: bytes) -> tuple[str, int]:
    path = tmp_path / "receipt.json"
    path.write_bytes(body)
    try:
        call_command("gridworld_verify", str(path), stdout=io.StringIO())
    except CommandError as error:
        return str(error).removeprefix(f"{path}: "), error.returncode
    return "", 0


# (label, receipt text, message, path, reason): one hostile value each
REFUSED = [
    (
        "e_max 1e309",
        TEXT.replace('"e_max":6000000', '"e_max":1e309'),
        "the receipt holds values out of range",
        "config.kernel.e_max",
        "number is not finite (too large for a float)",
    ),
    (
        "reward -1e309",
        TEXT.replace('"reward":-1', '"reward":-1e309', 1),
        "the receipt holds values out of range",
        "steps[0].reward",
        "number is not finite (too large for a float)",
    ),
    (
        "e_max negative",
        TEXT.replace('"e_max":6000000', '"e_max":-1'),
        "the receipt's config cannot be replayed",
        "config.kernel.e_max",
        "e_max must be at least 0",
    ),
    (
        "risk_unit negative",
        TEXT.replace('"risk_unit":1500000', '"risk_unit":-1500000'),
        "the receipt's config cannot be replayed",
        "config.kernel.risk_unit",
        "risk_unit must be at least 0",
    ),
    (
        "seed negative",
        TEXT.replace('"seed":1,', '"seed":-1,'),
        "the receipt's config cannot be replayed",
        "config.seed",
        "seed must be at least 0",
    ),
    (
        "duplicate e_max",
        TEXT.replace('"e_max":6000000', '"e_max":6000000,"e_max":6000000'),
        "the receipt repeats a key",
        "config.kernel.e_max",
        "duplicate key 'e_max': each key may appear once per object",
    ),
    (
        "duplicate step",
        TEXT.replace('"step":0,', '"step":0,"step":0,'),
        "the receipt repeats a key",
        "steps[0].step",
        "duplicate key 'step': each key may appear once per object",
    ),
]


@pytest.mark.parametrize(
    ("text", "message", "path", "reason"),
    [case[1:] for case in REFUSED],
    ids=[case[0] for case in REFUSED],
)
def test_verify_refuses_out_of_range_numbers_and_repeated_keys_with_path_and_reason(
    api: APIClient,
    tmp_path: Path,
    caplog: Any,
    text: str,
    message: str,
    path: str,
    reason: str,
) -> None:
    assert text != TEXT
    caplog.set_level("INFO", logger="gridworld")
    response = post(api, text.encode())
    assert response.status_code == 400, response.content
    assert response.json()["error"]["message"] == message
    assert error_fields(response) == {f"$.{path}": [reason]}
    # the command line refuses the same file with the same words, exit 2
    assert cli(tmp_path, text.encode()) == (f"{message}: {path}: {reason}", 2)
    assert "receipt_verified" not in caplog.text


def test_a_duplicate_key_with_the_same_value_is_still_refused_by_the_api(
    api: APIClient,
) -> None:
    # json.loads keeps the last value silently; verifying it would verify
    # a document other than the one a reader sees first.
    honest = post(api, TEXT.encode())
    assert honest.status_code == 200 and honest.json()["verified"] is True
    twice = TEXT.replace('"budget":1000000000,', '"budget":1,"budget":1000000000,')
    assert post(api, twice.encode()).status_code == 400


SENTINEL = "\u2063hostile\u2063"
HOSTILE_NUMBERS = [
    "1e309",
    "-1e309",
    "1E+999",
    "1e308",
    "-0.0",
    "0.5",
    "-1",
    "0",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "NaN",
    "-Infinity",
    "true",
    "null",
    "[]",
    "{}",
    '"1e309"',
]


def positions(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if path else []
    if isinstance(value, dict):
        for key, child in value.items():
            found += positions(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += positions(child, (*path, index))
    return found


PATHS = positions(RECEIPT)


def with_raw(path: tuple[Any, ...], raw: str, *, duplicate: bool) -> bytes:
    """The receipt with the value at ``path`` written as the text ``raw``
    (or, with ``duplicate``, the same key written again before it)."""
    doc = json.loads(TEXT)
    target = doc
    for step in path[:-1]:
        target = target[step]
    if duplicate and isinstance(path[-1], str):
        target[path[-1]] = SENTINEL
        marker = json.dumps(path[-1]) + ":" + json.dumps(SENTINEL)
        text = json.dumps(doc).replace(
            json.dumps(SENTINEL), f"{raw}, {json.dumps(path[-1])}: {raw}"
        )
        assert marker not in text
        return text.encode()
    target[path[-1]] = SENTINEL
    return json.dumps(doc).replace(json.dumps(SENTINEL), raw).encode()


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    path=st.sampled_from(PATHS),
    raw=st.one_of(
        st.sampled_from(HOSTILE_NUMBERS),
        st.integers(min_value=-(2**70), max_value=2**70).map(str),
        st.floats(allow_nan=False).map(repr).map(lambda t: t.replace("inf", "1e999")),
    ),
    duplicate=st.booleans(),
)
def test_no_hostile_number_or_repeated_key_anywhere_in_a_receipt_gets_a_500(
    api: APIClient, path: tuple[Any, ...], raw: str, duplicate: bool
) -> None:
    body = with_raw(path, raw, duplicate=duplicate)
    response = post(api, body)
    assert response.status_code in (200, 400), (path, raw, response.content[:300])
    answer = response.json()
    if response.status_code == 400:
        # NaN and Infinity are the API parser's refusal (no field); every
        # other refusal names the value's path
        error = answer["error"]
        assert error["fields"] or error["code"] == "parse_error", answer
    else:
        assert set(answer) == {"verified", "run_id", "steps_checked", "divergence"}


# --- stored receipts ---------------------------------------------------------


@pytest.fixture
def episode() -> Episode:
    batch = batch_create(
        config={"map": "hazard", "episodes": 1, "seed": 2, "proposer": "greedy"},
        schedule=False,
    )
    run_execute(run=batch.run)
    return batch.episode_rows.get()


def store(episode: Episode, data: bytes, *, compress: bool = True) -> None:
    Episode.objects.filter(pk=episode.pk).update(
        receipt_gz=zlib.compress(data) if compress else data
    )


def urls(episode: Episode) -> tuple[str, str, str]:
    base = f"/api/gridworld/batches/{episode.batch_id}/episodes/{episode.index}"
    page = f"/gridworld/batches/{episode.batch_id}/episodes/{episode.index}/"
    return base, f"{base}/receipt", page


def test_an_intact_stored_receipt_reports_its_digest_and_status(
    api: APIClient, episode: Episode
) -> None:
    detail, receipt, _ = urls(episode)
    wire = api.get(detail).json()
    assert wire["receiptStatus"] == "intact"
    assert wire["receiptDigest"] == wire["storedReceiptDigest"]
    assert wire["receiptDigest"] == episode.receipt_digest
    download = api.get(receipt)
    assert download["Receipt-Status"] == "intact"
    assert hashlib.sha256(download.content).hexdigest() == episode.receipt_digest


@pytest.mark.parametrize(
    ("data", "compress", "problem"),
    [
        (b"not zlib at all", False, "the bytes do not decompress"),
        (b'{"run_id": "gw-', True, "unreadable receipt (not JSON) ($: "),
        (b'{"a": 1, "a": 2}', True, "the receipt repeats a key (a: duplicate key 'a'"),
        (b'{"a": 1e309}', True, "the receipt holds values out of range (a: number"),
        (b"[1, 2]", True, "the bytes are JSON but not an object"),
    ],
    ids=["not-zlib", "truncated", "duplicate-key", "infinite", "not-an-object"],
)
def test_a_damaged_stored_receipt_is_a_409_and_a_plain_notice_not_a_500(
    api: APIClient,
    owner_client: Any,
    episode: Episode,
    caplog: Any,
    data: bytes,
    compress: bool,
    problem: str,
) -> None:
    recorded = episode.receipt_digest
    store(episode, data, compress=compress)
    detail, receipt, page = urls(episode)
    caplog.set_level("WARNING", logger="gridworld")
    response = api.get(receipt)
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "receipt_damaged"
    assert error["message"].startswith(f"stored receipt is damaged: {problem}")
    assert error["storedDigest"] == recorded
    assert error["digest"] == (hashlib.sha256(data).hexdigest() if compress else None)
    wire = api.get(detail).json()
    assert wire["receiptStatus"] == "damaged"
    assert wire["storedReceiptDigest"] == recorded
    assert wire["receiptDigest"] == error["digest"]
    for method in ("get", "post"):
        html = getattr(owner_client, method)(page).content.decode()
        assert "This episode's stored receipt is damaged" in html
        assert "Verify by replay" not in html
        assert 'id="gw-grid-figure"' not in html
    assert f"[Gridworld] stored_receipt_damaged batch={episode.batch_id}" in caplog.text


def test_an_altered_stored_receipt_is_served_with_the_digest_of_its_bytes(
    api: APIClient, owner_client: Any, episode: Episode
) -> None:
    recorded = episode.receipt_digest
    original = zlib.decompress(bytes(episode.receipt_gz)).decode()
    assert '"e_max":6000000' in original
    altered = original.replace('"e_max":6000000', '"e_max":-1').encode()
    store(episode, altered)
    detail, receipt, page = urls(episode)
    wire = api.get(detail).json()
    assert wire["receiptStatus"] == "altered"
    assert wire["receiptDigest"] == hashlib.sha256(altered).hexdigest() != recorded
    assert wire["storedReceiptDigest"] == recorded
    assert wire["receiptBytes"] == len(altered)
    download = api.get(receipt)
    assert download.status_code == 200
    assert download.content == altered
    assert download["Receipt-Status"] == "altered"
    html = owner_client.get(page).content.decode()
    assert "This receipt has changed since the episode was stored." in html
    assert hashlib.sha256(altered).hexdigest() in html
    assert 'id="gw-grid-figure"' not in html
    verdict = owner_client.post(page)
    assert verdict.status_code == 200
    assert (
        "Cannot be replayed</span>: the receipt&#x27;s config cannot be replayed: "
        "config.kernel.e_max: e_max must be at least 0." in verdict.content.decode()
    )
