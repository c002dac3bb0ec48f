"""What verification refuses before it replays anything: a key repeated in an
object, numbers that are infinite after parsing or past 64 bits, and config
values out of range, each named by its JSON path with the reason."""

from __future__ import annotations

import copy
import json

import pytest

from core.errors import SchemaInvalid
from gridworld.core.episode import EpisodeConfig, canonical, run_episode
from gridworld.core.grid import standard_layout
from gridworld.core.receipt_json import read_receipt_json, receipt_value_problems
from gridworld.core.replay import config_from_receipt, replay_verify
from gridworld.core.types import GridworldError

RECEIPT = run_episode(
    EpisodeConfig(map=standard_layout("hazard"), seed=1, max_steps=4)
).receipt
TEXT = canonical(RECEIPT)


def refusal(data: bytes) -> tuple[str, list[tuple[str, str, str]]]:
    with pytest.raises(SchemaInvalid) as caught:
        read_receipt_json(data)
    problems = [(p.path, p.code, p.message) for p in caught.value.problems]
    return caught.value.message, problems


def test_canonical_receipt_bytes_read_as_json_loads_reads_them() -> None:
    assert read_receipt_json(TEXT.encode()) == json.loads(TEXT)


def test_a_duplicate_key_is_refused_naming_the_key_and_its_object() -> None:
    text = TEXT.replace('"e_max":6000000', '"e_max":6000000,"e_max":-1', 1)
    assert refusal(text.encode()) == (
        "the receipt repeats a key",
        [
            (
                "config.kernel.e_max",
                "duplicate_key",
                "duplicate key 'e_max': each key may appear once per object",
            )
        ],
    )
    top = '{"run_id":"a",' + TEXT[1:]
    assert refusal(top.encode())[1][0][:2] == ("run_id", "duplicate_key")
    step = TEXT.replace('"reward":', '"reward":5,"reward":', 1)
    assert refusal(step.encode())[1][0][:2] == ("steps[0].reward", "duplicate_key")


@pytest.mark.parametrize("number", ["1e309", "-1e309", "1e400", "9" * 400 + ".0"])
def test_a_number_infinite_after_parsing_is_refused_by_path(number: str) -> None:
    text = TEXT.replace('"e_max":6000000', f'"e_max":{number}', 1)
    assert refusal(text.encode()) == (
        "the receipt holds values out of range",
        [
            (
                "config.kernel.e_max",
                "not_finite",
                "number is not finite (too large for a float)",
            )
        ],
    )


def test_integers_past_64_bits_and_nan_are_refused() -> None:
    text = TEXT.replace('"reward":', f'"reward":{2**63},"x":', 1)
    assert refusal(text.encode())[1] == [
        ("steps[0].reward", "range", "integer is out of range (64-bit signed)")
    ]
    text = TEXT.replace('"reward":', '"reward":NaN,"x":', 1)
    assert refusal(text.encode()) == (
        "unreadable receipt (not JSON)",
        [("$", "invalid_json", "NaN is not a JSON number")],
    )


def test_unreadable_bytes_are_refused_at_the_root() -> None:
    assert refusal(b"\xff{")[1] == [("$", "encoding", "not UTF-8 at byte 0")]
    assert refusal(b"[" * 100_000 + b"]" * 100_000)[1] == [
        ("$", "invalid_json", "nested too deep")
    ]
    assert refusal(b"")[0] == "unreadable receipt (not JSON)"


def test_value_problems_of_a_parsed_document() -> None:
    doc = {"a": [1.5, float("inf")], "b": {"c": float("nan")}, "d": -(2**63) - 1}
    assert [(p.path, p.code) for p in receipt_value_problems(doc)] == [
        ("a[1]", "not_finite"),
        ("b.c", "not_finite"),
        ("d", "range"),
    ]
    assert receipt_value_problems(RECEIPT) == []


@pytest.mark.parametrize(
    ("where", "key", "value", "path", "message"),
    [
        (("kernel",), "e_max", -1, "config.kernel.e_max", "e_max must be at least 0"),
        (
            ("kernel",),
            "risk_unit",
            -5,
            "config.kernel.risk_unit",
            "risk_unit must be at least 0",
        ),
        (("kernel",), "decay", 0, "config.kernel.decay", "decay must be at least 1"),
        ((), "budget", -1, "config.budget", "budget must be at least 0"),
        ((), "seed", -3, "config.seed", "seed must be at least 0"),
        (
            (),
            "drift_period",
            -1,
            "config.drift_period",
            "drift_period must be at least 0",
        ),
        (
            (),
            "max_steps",
            10_001,
            "config.max_steps",
            "max_steps must be between 0 and 10000",
        ),
        ((), "seed", 1.5, "config.seed", "seed must be an integer"),
        ((), "proposer", "oracle", "config.proposer", "unknown proposer"),
    ],
)
def test_config_values_out_of_range_are_refused_not_replayed(
    where: tuple[str, ...], key: str, value: object, path: str, message: str
) -> None:
    receipt = copy.deepcopy(RECEIPT)
    target = receipt["config"]
    for part in where:
        target = target[part]
    target[key] = value
    with pytest.raises(GridworldError) as caught:
        config_from_receipt(receipt)
    assert (caught.value.field, caught.value.message) == (path, message)
    # replay_verify itself never raises: the refusal is its divergence
    divergence = replay_verify(receipt).divergence
    assert (divergence.field, divergence.got) == (path, message)


def test_a_bad_map_text_is_named_as_the_config_map_text() -> None:
    receipt = copy.deepcopy(RECEIPT)
    receipt["config"]["map"]["text"] = "S.?\n..G\n"
    with pytest.raises(GridworldError) as caught:
        config_from_receipt(receipt)
    assert caught.value.field == "config.map.text"
