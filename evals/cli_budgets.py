"""The cost and latency budgets of ``manage.py benchmark_ci_gate``: its
arguments. The rules are ``evals.core.gate_budgets``'; the runs' figures
come from their spans in the database (``evals.services.compare_usage``),
so the budgets are the management command's only: ``python -m evals.gate``
reads two directories and no database, and has no such options.

``--max-cost-increase X`` (a fraction, ``0.10``, or a percent, ``10%``) and
``--max-p95-latency-ms N`` are off unless given; without them the gate's
output, report files and exit codes are what they were, byte for byte.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from evals.core.gate_budgets import Budgets, parse_cost_increase, parse_latency_ms


def _argument(parse: Any) -> Any:
    def value(text: str) -> float:
        try:
            return float(parse(text))
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return value


def add_budget_arguments(parser: argparse.ArgumentParser) -> None:
    """``--max-cost-increase``, ``--max-p95-latency-ms``."""
    parser.add_argument(
        "--max-cost-increase",
        type=_argument(parse_cost_increase),
        metavar="X",
        help="fail when a candidate run's model calls cost more than its "
        "baseline run's by this fraction (0.10) or percent (10%%); an unknown "
        "cost fails",
    )
    parser.add_argument(
        "--max-p95-latency-ms",
        type=_argument(parse_latency_ms),
        metavar="N",
        help="fail when the p95 over a candidate run's cases of the time its "
        "model calls took exceeds N ms; an unknown latency fails",
    )


def budgets_of(options: Mapping[str, Any]) -> Budgets:
    """The ``Budgets`` of parsed options (``asked`` is False without them)."""
    return Budgets(
        max_cost_increase=options.get("max_cost_increase"),
        max_p95_latency_ms=options.get("max_p95_latency_ms"),
    )
