"""What a score config may be, and which values a score of it may take.

A config is numeric (a closed range), categorical (two to nine labels, the
keys 1..9 of a reviewer's keyboard) or boolean. A value posted over REST is
checked strictly by its JSON type (``value_check``); a value typed into a
form arrives as text and is read first (``value_from_text``). Every refusal
names the field it is about and why, as ``SchemaInvalid``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import SchemaInvalid, SchemaProblem

NUMERIC = "numeric"
CATEGORICAL = "categorical"
BOOLEAN = "boolean"
KINDS = (NUMERIC, CATEGORICAL, BOOLEAN)

NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
MIN_LABELS = 2
MAX_LABELS = 9
MAX_LABEL_CHARS = 200
# Beyond this a range is not a score people give by hand.
MAX_ABS_BOUND = 1e9
TRUE_WORDS = frozenset({"true", "yes", "y", "1"})
FALSE_WORDS = frozenset({"false", "no", "n", "0"})


@dataclass(frozen=True, slots=True)
class ConfigSpec:
    """The shape of a config's values: its kind and its range or labels."""

    kind: str
    min_value: float | None = None
    max_value: float | None = None
    labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ScoreValue:
    """A checked value as stored: a number (numeric; 1/0 for boolean) and a
    label (categorical; "true"/"false" for boolean)."""

    number: float | None
    label: str

    def shown(self) -> Any:
        """The value as the API gives it back: a number, a label or a bool."""
        if self.label in ("true", "false") and self.number in (0.0, 1.0):
            return self.label == "true"
        if self.label:
            return self.label
        return self.number


def _refuse(field: str, message: str) -> SchemaInvalid:
    return SchemaInvalid(message, problems=[SchemaProblem(field, "invalid", message)])


def _bound(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    if not math.isfinite(number) or abs(number) > MAX_ABS_BOUND:
        return None
    return number


def config_check(
    *,
    name: str,
    kind: Any,
    min_value: Any = None,
    max_value: Any = None,
    labels: Any = (),
) -> ConfigSpec:
    """The spec of a config as given; ``SchemaInvalid`` naming every bad
    field (``name``, ``kind``, ``min_value``, ``max_value``, ``labels``)."""
    problems: list[SchemaProblem] = []

    def problem(field: str, message: str) -> None:
        problems.append(SchemaProblem(field, "invalid", message))

    if not isinstance(name, str) or NAME.match(name) is None:
        problem(
            "name",
            "the name must be 1 to 64 lowercase letters, digits, '-' or '_', "
            "starting with a letter or digit.",
        )
    if kind not in KINDS:
        problem("kind", f"the kind must be one of {', '.join(KINDS)}.")
    low = high = None
    found_labels: tuple[str, ...] = ()
    if kind == NUMERIC:
        low, high = _bound(min_value), _bound(max_value)
        if low is None:
            problem("min_value", "a numeric score needs a finite lowest value.")
        if high is None:
            problem("max_value", "a numeric score needs a finite highest value.")
        if low is not None and high is not None and not low < high:
            problem("max_value", "the highest value must be above the lowest.")
    elif (min_value is not None or max_value is not None) and kind in KINDS:
        problem("min_value", f"a {kind} score has no range.")
    if kind == CATEGORICAL:
        found_labels = _labels_check(labels, problem)
    elif labels and kind in KINDS:
        problem("labels", f"a {kind} score has no labels.")
    if problems:
        raise SchemaInvalid("the score config is not valid", problems=problems)
    return ConfigSpec(
        kind=str(kind), min_value=low, max_value=high, labels=found_labels
    )


def _labels_check(labels: Any, problem: Any) -> tuple[str, ...]:
    if not isinstance(labels, list | tuple) or not all(
        isinstance(label, str) for label in labels
    ):
        problem("labels", "the labels must be a list of texts.")
        return ()
    cleaned = tuple(label.strip() for label in labels)
    if not MIN_LABELS <= len(cleaned) <= MAX_LABELS:
        problem(
            "labels",
            f"a categorical score needs {MIN_LABELS} to {MAX_LABELS} labels.",
        )
    elif any(not label or len(label) > MAX_LABEL_CHARS for label in cleaned):
        problem("labels", f"each label must be 1 to {MAX_LABEL_CHARS} characters.")
    elif len(set(cleaned)) != len(cleaned):
        problem("labels", "the labels must differ from each other.")
    return cleaned


def value_check(spec: ConfigSpec, value: Any, *, field: str = "value") -> ScoreValue:
    """``value`` (as decoded from JSON) checked against ``spec``: a number in
    the range, one of the labels, or a boolean; ``SchemaInvalid`` naming
    ``field`` otherwise."""
    if spec.kind == NUMERIC:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _refuse(field, "the value must be a number.")
        number = float(value)
        low, high = spec.min_value, spec.max_value
        if not math.isfinite(number) or (
            low is not None and high is not None and not low <= number <= high
        ):
            raise _refuse(
                field, f"the value must be between {_plain(low)} and {_plain(high)}."
            )
        return ScoreValue(number=number, label="")
    if spec.kind == CATEGORICAL:
        if not isinstance(value, str):
            raise _refuse(field, "the value must be one of the labels (a text).")
        if value not in spec.labels:
            raise _refuse(field, f"the value must be one of: {', '.join(spec.labels)}.")
        return ScoreValue(number=None, label=value)
    if not isinstance(value, bool):
        raise _refuse(field, "the value must be true or false.")
    return ScoreValue(number=1.0 if value else 0.0, label="true" if value else "false")


def value_from_text(spec: ConfigSpec, text: str, *, field: str = "value") -> ScoreValue:
    """A value typed into a form: a number for a numeric config, a label for
    a categorical one, yes/no (true/false, y/n, 1/0) for a boolean one."""
    text = text.strip()
    if not text:
        raise _refuse(field, "a value is needed.")
    if spec.kind == NUMERIC:
        try:
            number = float(text)
        except ValueError:
            raise _refuse(field, "the value must be a number.") from None
        return value_check(spec, number, field=field)
    if spec.kind == CATEGORICAL:
        return value_check(spec, text, field=field)
    word = text.lower()
    if word in TRUE_WORDS or word in FALSE_WORDS:
        return value_check(spec, word in TRUE_WORDS, field=field)
    raise _refuse(field, "the value must be yes or no.")


def _plain(number: float | None) -> str:
    if number is None:
        return "?"
    return str(int(number)) if number.is_integer() else str(number)


def labels_shown(labels: Sequence[str]) -> list[tuple[int, str]]:
    """The labels with the key (1..9) a reviewer presses for each."""
    return [(index + 1, label) for index, label in enumerate(labels)]
