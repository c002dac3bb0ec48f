"""Score config shapes and the values a score may take."""

from __future__ import annotations

import math

import pytest

from core.errors import SchemaInvalid
from reviews.core.values import (
    ConfigSpec,
    ScoreValue,
    config_check,
    labels_shown,
    value_check,
    value_from_text,
)

NUMERIC = ConfigSpec(kind="numeric", min_value=1.0, max_value=5.0)
LABELS = ConfigSpec(kind="categorical", labels=("good", "bad"))
BOOLEAN = ConfigSpec(kind="boolean")


def fields_of(exc: pytest.ExceptionInfo[SchemaInvalid]) -> dict[str, str]:
    return {p.path: p.message for p in exc.value.problems}


def test_a_numeric_config_keeps_its_range() -> None:
    spec = config_check(name="quality", kind="numeric", min_value=1, max_value=5)
    assert spec == NUMERIC


def test_a_categorical_config_strips_its_labels() -> None:
    spec = config_check(name="verdict", kind="categorical", labels=[" good", "bad "])
    assert spec.labels == ("good", "bad")


@pytest.mark.parametrize(
    ("fields", "field", "reason"),
    [
        ({"name": "Bad Name", "kind": "boolean"}, "name", "lowercase"),
        ({"name": "", "kind": "boolean"}, "name", "lowercase"),
        ({"name": "x", "kind": "stars"}, "kind", "one of numeric"),
        ({"name": "x", "kind": "numeric", "max_value": 5}, "min_value", "lowest"),
        (
            {"name": "x", "kind": "numeric", "min_value": 5, "max_value": 5},
            "max_value",
            "above",
        ),
        (
            {"name": "x", "kind": "numeric", "min_value": 0, "max_value": math.inf},
            "max_value",
            "finite",
        ),
        (
            {"name": "x", "kind": "numeric", "min_value": True, "max_value": 3},
            "min_value",
            "finite",
        ),
        ({"name": "x", "kind": "categorical", "labels": ["one"]}, "labels", "2 to 9"),
        (
            {"name": "x", "kind": "categorical", "labels": [str(i) for i in range(10)]},
            "labels",
            "2 to 9",
        ),
        (
            {"name": "x", "kind": "categorical", "labels": ["a", "a"]},
            "labels",
            "differ",
        ),
        (
            {"name": "x", "kind": "categorical", "labels": ["a", " "]},
            "labels",
            "1 to 200",
        ),
        (
            {"name": "x", "kind": "categorical", "labels": "a,b"},
            "labels",
            "list of texts",
        ),
        ({"name": "x", "kind": "boolean", "labels": ["a", "b"]}, "labels", "no labels"),
        ({"name": "x", "kind": "boolean", "min_value": 0}, "min_value", "no range"),
    ],
)
def test_a_bad_config_names_the_field_and_why(
    fields: dict, field: str, reason: str
) -> None:
    with pytest.raises(SchemaInvalid) as exc:
        config_check(**fields)
    assert field in fields_of(exc)
    assert reason in fields_of(exc)[field]


def test_every_bad_field_is_reported_at_once() -> None:
    with pytest.raises(SchemaInvalid) as exc:
        config_check(name="BAD", kind="numeric")
    assert set(fields_of(exc)) == {"name", "min_value", "max_value"}


def test_a_number_in_range_is_kept_and_the_bounds_are_inclusive() -> None:
    assert value_check(NUMERIC, 3) == ScoreValue(number=3.0, label="")
    assert value_check(NUMERIC, 1).number == 1.0
    assert value_check(NUMERIC, 5.0).number == 5.0


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (0, "between 1 and 5"),
        (5.5, "between 1 and 5"),
        (math.nan, "between 1 and 5"),
        ("3", "must be a number"),
        (True, "must be a number"),
        (None, "must be a number"),
    ],
)
def test_a_numeric_value_outside_the_range_or_of_another_type_is_refused(
    value: object, reason: str
) -> None:
    with pytest.raises(SchemaInvalid) as exc:
        value_check(NUMERIC, value)
    assert reason in fields_of(exc)["value"]


def test_a_label_must_be_one_of_the_configs() -> None:
    assert value_check(LABELS, "bad") == ScoreValue(number=None, label="bad")
    with pytest.raises(SchemaInvalid) as exc:
        value_check(LABELS, "meh")
    assert fields_of(exc) == {"value": "the value must be one of: good, bad."}
    with pytest.raises(SchemaInvalid):
        value_check(LABELS, 1)


def test_a_boolean_is_stored_as_one_or_zero_and_a_word() -> None:
    assert value_check(BOOLEAN, True) == ScoreValue(number=1.0, label="true")
    assert value_check(BOOLEAN, False) == ScoreValue(number=0.0, label="false")
    with pytest.raises(SchemaInvalid):
        value_check(BOOLEAN, 1)


def test_the_field_name_can_be_chosen() -> None:
    with pytest.raises(SchemaInvalid) as exc:
        value_check(NUMERIC, 9, field="quality")
    assert list(fields_of(exc)) == ["quality"]


def test_values_typed_into_a_form_are_read_by_the_configs_kind() -> None:
    assert value_from_text(NUMERIC, " 4 ").number == 4.0
    assert value_from_text(LABELS, "good").label == "good"
    assert value_from_text(BOOLEAN, "Yes").label == "true"
    assert value_from_text(BOOLEAN, "n").label == "false"
    for spec, text in (
        (NUMERIC, "four"),
        (NUMERIC, "9"),
        (BOOLEAN, "maybe"),
        (LABELS, ""),
    ):
        with pytest.raises(SchemaInvalid):
            value_from_text(spec, text)


def test_a_value_is_shown_as_its_kind() -> None:
    assert value_check(NUMERIC, 2).shown() == 2.0
    assert value_check(LABELS, "good").shown() == "good"
    assert value_check(BOOLEAN, False).shown() is False


def test_labels_get_keys_one_to_nine() -> None:
    assert labels_shown(["good", "bad"]) == [(1, "good"), (2, "bad")]
