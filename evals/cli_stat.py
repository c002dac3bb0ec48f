"""The ``--stat`` mode of the command-line CI gate (``python -m evals.gate``
and ``manage.py benchmark_ci_gate``): its arguments, reports and log line.
The rules are ``evals.core.gate_stat``'s; ``evals.cli`` reads the stores.

Arguments: ``--stat`` turns the mode on; ``--margin X`` (a number >= 0,
default: each metric's registered threshold) is the non-inferiority margin;
``--reducer NAME`` reduces a scenario's epochs (``mean``, ``majority``,
``max``, ``pass_at_<k>``, ``pass^<k>``). Without ``--stat`` neither
``--margin`` nor ``--reducer`` changes anything: the gate's output and exit
codes are the plain gate's.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import CoreError
from evals.core.gate_stat import StatGateVerdict
from evals.core.gate_stat_report import stat_verdict_to_json, stat_verdict_to_markdown
from evals.core.stats import MEAN, Reducer, parse_reducer
from evals.core.stats_paired import Verdict

logger = logging.getLogger("evals.cli")


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
    """``--reducer``: a reducer name (``evals.core.stats.parse_reducer``)."""
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


def write_stat_reports(
    verdict: StatGateVerdict, *, json_path: Path | None, markdown_path: Path | None
) -> str:
    """Write the requested report files; the markdown report. ``OSError``
    when a file cannot be written."""
    markdown = stat_verdict_to_markdown(verdict)
    for path, text in (
        (json_path, json.dumps(stat_verdict_to_json(verdict), indent=2) + "\n"),
        (markdown_path, markdown),
    ):
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return markdown


def log_stat_gate(verdict: StatGateVerdict) -> None:
    """The ``[Eval] ci_gate ... mode=stat`` line of a decided ``--stat`` gate."""
    regressions = len(verdict.structural) + len(
        verdict.with_verdict(Verdict.REGRESSION)
    )
    logger.info(
        "[Eval] ci_gate passed=%s compared=%d regressions=%d improvements=%d "
        "missing=%d mode=stat inconclusive=%d underpowered=%d",
        str(verdict.passed).lower(),
        len(verdict.benchmarks),
        regressions,
        len(verdict.with_verdict(Verdict.IMPROVEMENT)),
        len(verdict.missing_candidate_benchmarks),
        len(verdict.with_verdict(Verdict.INCONCLUSIVE)),
        len(verdict.underpowered),
        extra={
            "passed": verdict.passed,
            "compared": len(verdict.benchmarks),
            "regressions": regressions,
        },
    )
