"""The dashboard's downloads: the compare and trends pages as JSON, CSV and
markdown documents, and the ``Export`` a view turns into a response.

Pure: the builders read only the attributes the protocols below name, so the
service's ``Comparison`` and the selector's ``Trend`` (which carry model rows
for the pages) are accepted as they are. Same inputs give byte-identical
output: keys, rows and cells come out in a fixed order.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

from evals.core.compare import CaseChange, CaseDiff, CaseFilter, CaseSide, MetricRow
from evals.core.gate import GateVerdict
from evals.core.gate_report import verdict_to_json, verdict_to_markdown
from evals.core.metric_registry import MetricDirection
from evals.core.run_configs import ConfigDifference


@dataclass(frozen=True, slots=True)
class Export:
    """A download: its bytes, media type, file name, and whether the browser
    shows it (``inline``) or saves it (``attachment``)."""

    body: bytes
    media_type: str
    filename: str
    disposition: Literal["inline", "attachment"] = "inline"


def json_export(
    document: Any,
    filename: str,
    *,
    disposition: Literal["inline", "attachment"] = "inline",
) -> Export:
    """``document`` indented by two spaces, ASCII-escaped (as Django's
    ``JsonResponse`` writes it)."""
    return Export(
        json.dumps(document, indent=2).encode(),
        "application/json",
        filename,
        disposition,
    )


def csv_export(rows: Iterable[Sequence[str]], filename: str) -> Export:
    """Rows as CSV (``\n`` line ends), saved as an attachment."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return Export(
        buffer.getvalue().encode(), "text/csv; charset=utf-8", filename, "attachment"
    )


def markdown_export(
    text: str,
    filename: str,
    *,
    disposition: Literal["inline", "attachment"] = "inline",
) -> Export:
    return Export(text.encode(), "text/markdown; charset=utf-8", filename, disposition)


def verdict_markdown_export(
    verdict: GateVerdict,
    filename: str,
    *,
    disposition: Literal["inline", "attachment"] = "inline",
) -> Export:
    """The gate's markdown report (a PR comment) of ``verdict``."""
    return markdown_export(
        verdict_to_markdown(verdict), filename, disposition=disposition
    )


class SectionLike(Protocol):
    @property
    def benchmark_id(self) -> str: ...
    @property
    def base_run_id(self) -> str | None: ...
    @property
    def candidate_run_id(self) -> str | None: ...
    @property
    def metrics(self) -> Sequence[MetricRow]: ...


class ComparisonLike(Protocol):
    @property
    def mode(self) -> str: ...
    @property
    def snapshot_id(self) -> str | None: ...
    @property
    def verdict(self) -> GateVerdict: ...
    @property
    def notes(self) -> Sequence[str]: ...
    @property
    def warnings(self) -> Sequence[str]: ...
    @property
    def differences(self) -> Sequence[tuple[str, ConfigDifference]]: ...
    @property
    def sections(self) -> Sequence[SectionLike]: ...
    @property
    def change_counts(self) -> Mapping[CaseChange, int]: ...


class TrendPointLike(Protocol):
    @property
    def run_id(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def started_at(self) -> datetime: ...
    @property
    def completed_at(self) -> datetime | None: ...
    @property
    def status(self) -> str: ...
    @property
    def pass_rate(self) -> float: ...
    @property
    def value(self) -> float | None: ...
    @property
    def metrics(self) -> Mapping[str, float]: ...
    @property
    def verdict_passed(self) -> bool | None: ...


class _BenchmarkLike(Protocol):
    @property
    def benchmark_id(self) -> str: ...


class _BaselineEntryLike(Protocol):
    @property
    def run_id(self) -> str: ...


class _BaselineLike(Protocol):
    @property
    def snapshot_id(self) -> str: ...
    @property
    def entry(self) -> _BaselineEntryLike: ...


class TrendLike(Protocol):
    @property
    def benchmark(self) -> _BenchmarkLike: ...
    @property
    def metric(self) -> str: ...
    @property
    def direction(self) -> MetricDirection: ...
    @property
    def baseline(self) -> _BaselineLike | None: ...
    @property
    def baseline_value(self) -> float | None: ...
    @property
    def metric_names(self) -> Sequence[str]: ...
    @property
    def points(self) -> Sequence[TrendPointLike]: ...


def _side_json(side: CaseSide | None) -> dict[str, Any] | None:
    if side is None:
        return None
    return {
        "runId": side.run_id,
        "passed": side.passed,
        "latencyMs": side.latency_ms,
        "error": side.error or None,
    }


def case_to_json(case: CaseDiff) -> dict[str, Any]:
    return {
        "benchmarkId": case.benchmark_id,
        "caseId": case.case_id,
        "change": case.change.value,
        "base": _side_json(case.base),
        "candidate": _side_json(case.candidate),
        "latencyDeltaMs": case.latency_delta_ms,
        "stimulusKind": case.stimulus_kind or None,
        "affordance": case.affordance or None,
        "tags": list(case.tags),
    }


def comparison_to_json(
    comparison: ComparisonLike, *, cases: Sequence[CaseDiff], wanted: CaseFilter
) -> dict[str, Any]:
    """The compare page as JSON: the gate's own report under ``gate``, the
    metrics side by side, change counts, and ``cases`` after the filters."""
    return {
        "mode": comparison.mode,
        "snapshotId": comparison.snapshot_id,
        "gate": verdict_to_json(comparison.verdict),
        "warnings": list(comparison.warnings),
        "configurationDifferences": [
            {"benchmarkId": benchmark_id, **difference.to_json()}
            for benchmark_id, difference in comparison.differences
        ],
        "notes": list(comparison.notes),
        "benchmarks": [
            {
                "benchmarkId": section.benchmark_id,
                "baseRunId": section.base_run_id,
                "candidateRunId": section.candidate_run_id,
                "metrics": [
                    {
                        "name": row.name,
                        "base": row.base,
                        "candidate": row.candidate,
                        "delta": row.delta,
                        "direction": row.direction.value,
                        "outcome": row.outcome,
                    }
                    for row in section.metrics
                ],
            }
            for section in comparison.sections
        ],
        "caseCounts": {
            change.value: count for change, count in comparison.change_counts.items()
        },
        "filters": dict(wanted.to_query()),
        "cases": [case_to_json(case) for case in cases],
    }


CASE_CSV_HEADER = (
    "benchmark_id",
    "case_id",
    "change",
    "base_run_id",
    "base_passed",
    "base_latency_ms",
    "candidate_run_id",
    "candidate_passed",
    "candidate_latency_ms",
    "latency_delta_ms",
    "stimulus_kind",
    "affordance",
    "tags",
)


METRIC_CSV_HEADER = (
    "benchmark_id",
    "metric",
    "base",
    "candidate",
    "delta",
    "direction",
    "outcome",
)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def case_csv_rows(cases: Iterable[CaseDiff]) -> list[list[str]]:
    """The case table as CSV rows (header first); tags joined with ``;``."""
    return list(case_csv_iter(cases))


def case_csv_iter(cases: Iterable[CaseDiff]) -> Iterator[list[str]]:
    """``case_csv_rows`` one row at a time (a streamed download)."""
    yield list(CASE_CSV_HEADER)
    for case in cases:
        base, cand = case.base, case.candidate
        yield (
            [
                _cell(v)
                for v in (
                    case.benchmark_id,
                    case.case_id,
                    case.change.value,
                    base.run_id if base else None,
                    base.passed if base else None,
                    base.latency_ms if base else None,
                    cand.run_id if cand else None,
                    cand.passed if cand else None,
                    cand.latency_ms if cand else None,
                    case.latency_delta_ms,
                    case.stimulus_kind,
                    case.affordance,
                    ";".join(case.tags),
                )
            ]
        )


def metric_csv_rows(comparison: ComparisonLike) -> list[list[str]]:
    out = [list(METRIC_CSV_HEADER)]
    for section in comparison.sections:
        for row in section.metrics:
            out.append(
                [
                    _cell(v)
                    for v in (
                        section.benchmark_id,
                        row.name,
                        row.base,
                        row.candidate,
                        row.delta,
                        row.direction.value,
                        row.outcome,
                    )
                ]
            )
    return out


TREND_CSV_HEADER = (
    "run_id",
    "started_at",
    "completed_at",
    "status",
    "pass_rate",
    "value",
    "latency_p50_ms",
    "latency_p95_ms",
    "action_rate",
    "compulsion_proxy",
    "verdict_passed",
    "url",
)


def trend_to_json(trend: TrendLike) -> dict[str, Any]:
    """The trend page as JSON: every plotted run, oldest first, with the
    baseline the reference line comes from."""
    baseline = trend.baseline
    return {
        "benchmarkId": trend.benchmark.benchmark_id,
        "metric": trend.metric,
        "direction": trend.direction.value,
        "baseline": None
        if baseline is None
        else {
            "snapshotId": baseline.snapshot_id,
            "runId": baseline.entry.run_id,
            "value": trend.baseline_value,
        },
        "metricNames": list(trend.metric_names),
        "runs": [
            {
                "runId": p.run_id,
                "startedAt": p.started_at.isoformat(),
                "completedAt": p.completed_at.isoformat() if p.completed_at else None,
                "status": p.status,
                "passRate": p.pass_rate,
                "value": p.value,
                "latencyP50Ms": p.metrics.get("latency_p50_ms"),
                "latencyP95Ms": p.metrics.get("latency_p95_ms"),
                "actionRate": p.metrics.get("action_rate"),
                "compulsionProxy": p.metrics.get("compulsion_proxy"),
                "verdictPassed": p.verdict_passed,
                "url": p.url,
            }
            for p in trend.points
        ],
    }


def trend_csv_rows(trend: TrendLike) -> list[list[str]]:
    out = [list(TREND_CSV_HEADER)]
    for p in trend.points:
        out.append(
            [
                _cell(v)
                for v in (
                    p.run_id,
                    p.started_at.isoformat(),
                    p.completed_at.isoformat() if p.completed_at else None,
                    p.status,
                    p.pass_rate,
                    p.value,
                    p.metrics.get("latency_p50_ms"),
                    p.metrics.get("latency_p95_ms"),
                    p.metrics.get("action_rate"),
                    p.metrics.get("compulsion_proxy"),
                    p.verdict_passed,
                    p.url,
                )
            ]
        )
    return out
