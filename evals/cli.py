"""The command-line CI gate over two eval-store directories:
``python -m evals.gate`` (its documented name; ``python -m evals.cli`` is the
same). The gate's rules are ``evals.core.gate``'s; this module reads the
stores, prints and logs.

Runs with no database and no Django settings, so any CI job can use it::

    python -m evals.gate --base DIR --candidate DIR [--snapshot-id ID]
        [--json OUT] [--markdown OUT] [--min-cases N]
        [--metric-direction NAME=higher_is_better|lower_is_better|neutral]
        [--workers N] [--stat [--margin X] [--reducer NAME]]

Without ``--snapshot-id`` the base store's latest completed runs are the
baseline; with it, the named stored snapshot (from the base store, else
bootstrapped from the candidate's). The markdown report goes to stdout (and
to ``--markdown OUT``), the JSON report to ``--json OUT``.

Exit codes: 0 the gate passed, 1 a regression, 2 unusable input (a missing
or unreadable directory, a snapshot in neither store, a report that cannot
be written, bad arguments), with the reason on stderr.

``--stat`` judges with intervals instead of point estimates (``evals.cli_stat``,
``evals.core.gate_stat``); without it the output is the plain gate's.

Imports only ``evals.core``, the standard library and ``logging``. The
gate's arguments, its reading of two stores (``decide``), its report files
and its ``[Eval] ci_gate ...`` line are defined here once; the management
commands and ``evals.services.benchmark_reports`` use them.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from core.errors import CoreError
from evals.cli_stat import StatOptions, add_stat_arguments, stat_options_of
from evals.core.gate import BaselineSource, GateVerdict, evaluate_gate, resolve_snapshot
from evals.core.gate_report import (
    verdict_to_json,
    verdict_to_markdown,
    write_report_files,
)
from evals.core.metric_registry import parse_overrides
from evals.core.store import StoreContents, StoreKind
from evals.core.store_reader import load_store

logger = logging.getLogger(__name__)

EXIT_PASSED = 0
EXIT_REGRESSION = 1
EXIT_UNUSABLE = 2
# A pool of one process only adds pickling to the work.
_PARALLEL_MIN_WORKERS = 2


@dataclass(frozen=True, slots=True)
class GateRequest:
    """What the gate over two stores is asked: the stores, the stored
    snapshot to compare against (else the base's latest runs), the minimum
    cases for a pass-rate verdict, and metric direction overrides."""

    base: Path
    candidate: Path
    snapshot_id: str | None = None
    min_cases: int | None = None
    metric_directions: tuple[str, ...] = ()


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def add_store_arguments(parser: argparse.ArgumentParser) -> None:
    """``--base``, ``--candidate``, ``--snapshot-id``."""
    parser.add_argument("--base", required=True, type=Path, help="base eval store dir")
    parser.add_argument(
        "--candidate", required=True, type=Path, help="candidate eval store dir"
    )
    parser.add_argument(
        "--snapshot-id",
        help="compare against this stored baseline snapshot (e.g. required-main)",
    )


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """``--json``, ``--markdown``, ``--min-cases``, ``--metric-direction``."""
    parser.add_argument("--json", type=Path, help="write the JSON report here")
    parser.add_argument("--markdown", type=Path, help="write the markdown report here")
    parser.add_argument(
        "--min-cases",
        type=positive_int,
        help="benchmarks with fewer cases are inconclusive on pass rate",
    )
    parser.add_argument(
        "--metric-direction",
        action="append",
        default=[],
        metavar="NAME=DIRECTION",
        help="override a metric's direction (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line described in the module docstring."""
    parser = argparse.ArgumentParser(
        prog="python -m evals.gate",
        description="Compare a candidate eval store against a baseline and gate on "
        "regressions (exit 0 pass, 1 regression, 2 unusable input).",
    )
    add_store_arguments(parser)
    add_report_arguments(parser)
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=min(os.cpu_count() or 1, 8),
        help="processes used to read the stores (default: CPUs, at most 8)",
    )
    add_stat_arguments(parser)
    return parser


def request_of(options: Mapping[str, Any]) -> GateRequest:
    """The ``GateRequest`` of parsed options (``vars(args)``, or the options
    a management command gets)."""
    return GateRequest(
        base=Path(options["base"]),
        candidate=Path(options["candidate"]),
        snapshot_id=options.get("snapshot_id"),
        min_cases=options.get("min_cases"),
        metric_directions=tuple(options.get("metric_direction") or ()),
    )


def write_reports(
    verdict: GateVerdict, *, json_path: Path | None, markdown_path: Path | None
) -> str:
    """Write the requested report files; the markdown report. ``OSError``
    when a file cannot be written."""
    return write_report_files(
        verdict_to_markdown(verdict),
        verdict_to_json(verdict),
        json_path=json_path,
        markdown_path=markdown_path,
    )


def log_gate(verdict: GateVerdict) -> None:
    """The ``[Eval] ci_gate ...`` line of a decided gate."""
    logger.info(
        "[Eval] ci_gate passed=%s compared=%d regressions=%d improvements=%d "
        "missing=%d",
        str(verdict.passed).lower(),
        verdict.compared_benchmarks,
        len(verdict.regressions),
        len(verdict.improvements),
        len(verdict.missing_candidate_benchmarks),
        extra={
            "passed": verdict.passed,
            "compared": verdict.compared_benchmarks,
            "regressions": len(verdict.regressions),
        },
    )


def load_gate_stores(
    request: GateRequest, executor: Executor | None, *, case_columns: bool = False
) -> tuple[StoreContents, StoreContents]:
    """The base and candidate stores as far as the gate reads them.

    Every file is validated, but shadow records are only counted and only
    the latest completed run per benchmark is kept. In snapshot mode the
    base store is read for its baselines, then for the runs the snapshot
    names (their case results give the flipped cases), never in full.
    ``case_columns``: the runs' case results as columns, not built (what
    the ``--stat`` gate reads; ``evals.core.store_reader.load_store``).
    """
    shadows_counted = {StoreKind.SHADOWS}
    candidate = load_store(
        request.candidate,
        counted_only=shadows_counted,
        latest_runs_only=True,
        case_columns=case_columns,
        executor=executor,
    )
    if request.snapshot_id is None:
        base = load_store(
            request.base,
            counted_only=shadows_counted,
            latest_runs_only=True,
            case_columns=case_columns,
            executor=executor,
        )
    else:
        base = load_store(request.base, kinds={StoreKind.BASELINES})
        snapshot, source = resolve_snapshot(
            request.snapshot_id, base=base, candidate=candidate
        )
        if source is BaselineSource.BASE:
            names = {f"{entry.run_id}.json" for entry in snapshot.benchmarks}
            base = load_store(
                request.base,
                kinds={StoreKind.BASELINES, StoreKind.RUNS},
                run_file_names=names,
                case_columns=case_columns,
            )
    return base, candidate


def decide(request: GateRequest, executor: Executor | None) -> GateVerdict:
    """Read what the gate needs, no more, and decide (``load_gate_stores``)."""
    overrides = parse_overrides(request.metric_directions)
    base, candidate = load_gate_stores(request, executor)
    return evaluate_gate(
        base=base,
        candidate=candidate,
        snapshot_id=request.snapshot_id,
        min_cases=request.min_cases,
        overrides=overrides,
    )


def _run_stat(
    args: argparse.Namespace, options: StatOptions, executor: Executor | None
) -> int:
    """``--stat``: read as the plain gate does, decide with intervals."""
    # Imported here so that only --stat pays for importing numpy and scipy:
    # the plain gate's start stays what it was.
    from evals import cli_stat_run

    request = request_of(vars(args))
    base, candidate = load_gate_stores(request, executor, case_columns=True)
    verdict = cli_stat_run.decide_stat(
        base,
        candidate,
        options,
        snapshot_id=request.snapshot_id,
        min_cases=request.min_cases,
        overrides=parse_overrides(request.metric_directions),
    )
    sys.stdout.write(
        cli_stat_run.write_stat_reports(
            verdict, json_path=args.json, markdown_path=args.markdown
        )
    )
    cli_stat_run.log_stat_gate(verdict)
    return EXIT_PASSED if verdict.passed else EXIT_REGRESSION


def _run(args: argparse.Namespace, executor: Executor | None) -> int:
    stat = stat_options_of(vars(args))
    if stat is not None:
        return _run_stat(args, stat, executor)
    verdict = decide(request_of(vars(args)), executor)
    markdown = write_reports(verdict, json_path=args.json, markdown_path=args.markdown)
    sys.stdout.write(markdown)
    log_gate(verdict)
    return EXIT_PASSED if verdict.passed else EXIT_REGRESSION


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, run the gate, return the exit code (see module docstring)."""
    args = build_parser().parse_args(argv)
    try:
        if args.workers >= _PARALLEL_MIN_WORKERS:
            with ProcessPoolExecutor(max_workers=args.workers) as executor:
                return _run(args, executor)
        return _run(args, None)
    except (CoreError, ValueError, OSError) as error:
        message = error.message if isinstance(error, CoreError) else str(error)
        sys.stderr.write(f"evals.gate: error: {message}\n")
        return EXIT_UNUSABLE


def run() -> NoReturn:
    """The process entry point: log lines to stderr, exit with ``main``'s code."""
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    sys.exit(main())


if __name__ == "__main__":
    run()
