"""The statistics' inputs, without the numerics: reducer names and their
parsing, the repeats limit, and the error naming a bad input's field.

Pure Python (no numpy or scipy), so a command line can check its arguments
without paying for importing the numerics; ``evals.core.stats`` computes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from core.errors import CoreError

MAX_REPEATS = 100


class StatInputError(CoreError):
    """Input the statistics cannot use; ``field`` names the offending input."""

    code = "stat_input_invalid"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", details={"field": field})
        self.field = field


class ReducerKind(StrEnum):
    MEAN = "mean"
    MAJORITY = "majority"
    MAX = "max"
    PASS_AT_K = "pass_at_k"  # noqa: S105 - a reducer name
    PASS_HAT_K = "pass^k"  # noqa: S105 - a reducer name


@dataclass(frozen=True, slots=True)
class Reducer:
    """How one scenario's epochs become one value; ``k`` for the pass kinds."""

    kind: ReducerKind = ReducerKind.MEAN
    k: int = 1

    @property
    def name(self) -> str:
        if self.kind is ReducerKind.PASS_AT_K:
            return f"pass_at_{self.k}"
        if self.kind is ReducerKind.PASS_HAT_K:
            return f"pass^{self.k}"
        return self.kind.value


MEAN = Reducer()

_PASS_NAME = re.compile(r"^(pass_at_|pass\^)([0-9]{1,3})$")


def parse_reducer(text: str) -> Reducer:
    """``mean``, ``majority``, ``max``, ``pass_at_<k>`` or ``pass^<k>``;
    ``StatInputError`` naming ``reducer`` otherwise."""
    if text in (ReducerKind.MEAN, ReducerKind.MAJORITY, ReducerKind.MAX):
        return Reducer(ReducerKind(text))
    match = _PASS_NAME.match(text)
    if match is None:
        raise StatInputError(
            "reducer",
            f"unknown reducer {text!r} (mean, majority, max, pass_at_<k>, pass^<k>)",
        )
    k = int(match.group(2))
    if not 1 <= k <= MAX_REPEATS:
        raise StatInputError("reducer", f"k must be 1..{MAX_REPEATS}, got {k}")
    kind = (
        ReducerKind.PASS_AT_K
        if match.group(1) == "pass_at_"
        else ReducerKind.PASS_HAT_K
    )
    return Reducer(kind, k)
