"""Repeated trials (epochs) of a run, without the numerics: the repeats
and reducer a run is made with, its case ids per epoch, and a stored
figure in words.

A run may try each scenario K times (``repeats``, 1..``MAX_REPEATS``). With
K = 1 a case id is its scenario id, as before repeats existed; with K > 1
epoch e of scenario s is the case ``s#e`` (``evals.core.stats.split_epoch``
reads it back), epochs 0..K-1. Pure Python (no numpy or scipy), so that
checking a request's repeats costs no import of the numerics;
``evals.core.run_uncertainty`` computes the figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evals.core.stats_input import (
    MAX_REPEATS,
    MEAN,
    Reducer,
    ReducerKind,
    StatInputError,
    parse_reducer,
)

PER_SCENARIO_KINDS = (ReducerKind.MEAN, ReducerKind.MAJORITY, ReducerKind.MAX)
WITHIN_ZERO = (
    "Every epoch of each scenario gave the same result (within-scenario "
    "variance 0): the model replays one output per scenario, so repeats add "
    "no information; add scenarios instead."
)


def check_repeats(value: object) -> int:
    """``value`` as a number of repeats (a whole number 1..``MAX_REPEATS``);
    ``StatInputError`` naming ``repeats`` otherwise (``"x"``, 2.5, 0, 101)."""
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    else:
        number = None
    if number is None:
        raise StatInputError("repeats", f"must be a whole number, got {value!r}")
    if not 1 <= number <= MAX_REPEATS:
        raise StatInputError("repeats", f"must be 1..{MAX_REPEATS}, got {number}")
    return number


def check_reducer(text: str, repeats: int) -> Reducer:
    """The run's reducer (``parse_reducer``); ``StatInputError`` naming
    ``reducer`` when unknown or when ``pass_at_k``/``pass^k`` asks for more
    epochs than the run has."""
    reducer = parse_reducer(text)
    if reducer.kind not in PER_SCENARIO_KINDS and reducer.k > repeats:
        raise StatInputError(
            "reducer",
            f"{reducer.name} needs at least {reducer.k} repeats; the run has {repeats}",
        )
    return reducer


def epoch_case_id(scenario_id: str, epoch: int, repeats: int) -> str:
    """The case id of ``epoch`` of ``scenario_id`` in a run of ``repeats``."""
    return scenario_id if repeats == 1 else f"{scenario_id}#{epoch}"


def repeat_case_ids(scenario_ids: Sequence[str], repeats: int) -> list[str]:
    """Every case of a run: each scenario's epochs together, in suite order."""
    return [
        epoch_case_id(scenario_id, epoch, repeats)
        for scenario_id in scenario_ids
        for epoch in range(repeats)
    ]


def reducer_of(config: dict[str, Any]) -> Reducer:
    """A stored run's reducer (the mean when its config names none)."""
    name = config.get("reducer")
    return parse_reducer(name) if isinstance(name, str) else MEAN


def repeats_of(config: dict[str, Any]) -> int:
    """A stored run's repeats (1 when its config names none: a run made
    before repeats existed)."""
    value = config.get("repeats", 1)
    return value if isinstance(value, int) and value >= 1 else 1


def _two(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else "—"


def format_figure(figure: dict[str, Any]) -> str:
    """A stored figure in words: ``0.83 (95% CI 0.71–0.92), n = 20
    scenarios, K = 5`` (no interval below 2 scenarios)."""
    interval = (
        f" (95% CI {_two(figure.get('ciLow'))}–{_two(figure.get('ciHigh'))})"
        if figure.get("ciLow") is not None
        else " (no interval)"
    )
    n = figure.get("n", 0)
    noun = "scenario" if n == 1 else "scenarios"
    k = figure.get("k", 1)
    return f"{_two(figure.get('estimate'))}{interval}, n = {n} {noun}, K = {k}"


def shows_repeats(config: dict[str, Any]) -> bool:
    """A run made with repeats or a reducer other than the mean (whose
    answers and printouts name them; other runs keep theirs as they were)."""
    return "repeats" in config or "reducer" in config
