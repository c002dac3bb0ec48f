"""The ``--stat`` mode of the command-line CI gate (``python -m evals.gate``
and ``manage.py benchmark_ci_gate``): its arguments. Deciding, the reports
and the log line are ``evals.cli_stat_run``'s, the rules
``evals.core.gate_stat``'s; ``evals.cli`` reads the stores. This module
imports no numpy or scipy, so the plain gate starts as fast as before.

Arguments: ``--stat`` turns the mode on; ``--margin X`` (a number >= 0,
default: each metric's registered threshold) is the non-inferiority margin;
``--reducer NAME`` reduces a scenario's epochs (``mean``, ``majority``,
``max``, ``pass_at_<k>``, ``pass^<k>``). Without ``--stat`` neither
``--margin`` nor ``--reducer`` changes anything: the gate's output and exit
codes are the plain gate's.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.errors import CoreError
from evals.core.stats_input import MEAN, Reducer, parse_reducer


@dataclass(frozen=True, slots=True)
class StatOptions:
    margin: float | None = None
    reducer: Reducer = MEAN


def margin_value(text: str) -> float:
    """``--margin``: a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0: {text!r}")
    return value


def reducer_value(text: str) -> Reducer:
    """``--reducer``: a reducer name (``evals.core.stats_input.parse_reducer``)."""
    try:
        return parse_reducer(text)
    except CoreError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def add_stat_arguments(parser: argparse.ArgumentParser) -> None:
    """``--stat``, ``--margin``, ``--reducer``."""
    parser.add_argument(
        "--stat",
        action="store_true",
        help="judge with intervals: fail only when a drop beyond the margin is shown",
    )
    parser.add_argument(
        "--margin",
        type=margin_value,
        help="with --stat: the non-inferiority margin (default: the metric's "
        "registered threshold, 0 for the pass rate)",
    )
    parser.add_argument(
        "--reducer",
        type=reducer_value,
        default=MEAN,
        help="with --stat: how a scenario's epochs become one value "
        "(mean, majority, max, pass_at_<k>, pass^<k>; default mean)",
    )


def stat_options_of(options: Mapping[str, Any]) -> StatOptions | None:
    """The ``StatOptions`` of parsed options; ``None`` without ``--stat``."""
    if not options.get("stat"):
        return None
    return StatOptions(
        margin=options.get("margin"), reducer=options.get("reducer") or MEAN
    )
