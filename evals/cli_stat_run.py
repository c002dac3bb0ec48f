"""The ``--stat`` gate's run: decide over the stores ``evals.cli`` read,
write the reports, log the line. Imports the numerics (numpy, scipy), so
``evals.cli`` imports it only when ``--stat`` is given; it imports nothing of
``evals.cli``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from evals.cli_stat import StatOptions
from evals.core.gate import evaluate_gate
from evals.core.gate_budgets import BudgetReport, budgets_to_json, budgets_to_markdown
from evals.core.gate_report import write_report_files
from evals.core.gate_stat import StatGateVerdict, evaluate_stat_gate
from evals.core.gate_stat_report import stat_verdict_to_json, stat_verdict_to_markdown
from evals.core.metric_registry import MetricDirection
from evals.core.stats_paired import Verdict
from evals.core.store import StoreContents

logger = logging.getLogger("evals.cli")


def decide_stat(
    base: StoreContents,
    candidate: StoreContents,
    options: StatOptions,
    *,
    snapshot_id: str | None,
    min_cases: int | None,
    overrides: Mapping[str, MetricDirection] | None,
) -> StatGateVerdict:
    """The plain gate over the stores, then the statistical gate over the
    runs it compared."""
    plain = evaluate_gate(
        base=base,
        candidate=candidate,
        snapshot_id=snapshot_id,
        min_cases=min_cases,
        overrides=overrides,
    )
    return evaluate_stat_gate(
        plain,
        base=base,
        candidate=candidate,
        margin=options.margin,
        reducer=options.reducer,
        overrides=overrides,
    )


def write_stat_reports(
    verdict: StatGateVerdict,
    *,
    json_path: Path | None,
    markdown_path: Path | None,
    budgets: BudgetReport | None = None,
) -> str:
    """Write the requested report files; the markdown report. ``OSError``
    when a file cannot be written. ``budgets`` (``benchmark_ci_gate``'s cost
    and latency budgets, when asked) add a section and a ``budgets`` key,
    and a failed budget fails the report's ``passed``."""
    if budgets is not None:
        verdict = replace(verdict, passed=verdict.passed and budgets.passed)
    markdown = stat_verdict_to_markdown(verdict)
    document = stat_verdict_to_json(verdict)
    if budgets is not None:
        markdown += "\n".join(budgets_to_markdown(budgets)) + "\n"
        document["budgets"] = budgets_to_json(budgets)
    return write_report_files(
        markdown, document, json_path=json_path, markdown_path=markdown_path
    )


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
