"""JSON values in JavaScript's text forms (what the reference renderer shows)."""

from __future__ import annotations

import pytest

from stream.core.js_text import js_json, js_number, js_round, js_string


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (-0.0, "0"),
        (100.0, "100"),
        (2.5, "2.5"),
        (-1.5, "-1.5"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (123456789012345680000, "123456789012345680000"),
        (2**53 + 1, "9007199254740992"),
    ],
)
def test_js_number(value: float, text: str) -> None:
    assert js_number(value) == text


@pytest.mark.parametrize(
    ("value", "rounded"), [(2.5, 3), (-2.5, -2), (-0.4, 0), (12.49, 12), (0.5, 1)]
)
def test_js_round_takes_halves_up(value: float, rounded: int) -> None:
    assert js_round(value) == rounded


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("a b", "a b"),
        (None, "null"),
        (True, "true"),
        ([1, None, [2, "x"]], "1,,2,x"),
        ({"a": 1}, "[object Object]"),
        (4.0, "4"),
    ],
)
def test_js_string(value: object, text: str) -> None:
    assert js_string(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"kind": "skeleton", "hostile": True}, '{"kind":"skeleton","hostile":true}'),
        ({"b": 1, "2": None, "1": 1.0, "01": 0}, '{"1":1,"2":null,"b":1,"01":0}'),
        (["a", 2.50, None], '["a",2.5,null]'),
        ('quote " and \n', '"quote \\" and \\n"'),
        ("\ud800", '"\\ud800"'),
        ("ü\u2028", '"ü\u2028"'),
    ],
)
def test_js_json(value: object, text: str) -> None:
    assert js_json(value) == text
