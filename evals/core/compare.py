"""The case comparison of the dashboard: how each case changed between two
runs, the filters of the case table, and the metric rows shown side by side.

Pure: no Django, no clock. ``diff_cases`` lists every case of either side
with its change; ``sorted_cases`` orders them flips first, then by benchmark
and case id (stable whatever the input order); ``filter_cases`` applies the
table's filters. A case row carries only what the table shows, never the
scenario artifact.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter
from typing import Any

from evals.core.metric_registry import MetricDirection, direction

PASS_RATE = "passRate"  # noqa: S105 (a metric name, not a secret)


ONLY_BASE = "only_base"


ONLY_CANDIDATE = "only_candidate"


class CaseChange(StrEnum):
    PASS_TO_FAIL = "pass_to_fail"  # noqa: S105 (not a secret)
    FAIL_TO_PASS = "fail_to_pass"  # noqa: S105
    NEW = "new"
    MISSING = "missing"
    STILL_FAILING = "still_failing"
    STILL_PASSING = "still_passing"


CHANGE_LABELS: Mapping[CaseChange, str] = {
    CaseChange.PASS_TO_FAIL: "pass -> fail",
    CaseChange.FAIL_TO_PASS: "fail -> pass",
    CaseChange.NEW: "new",
    CaseChange.MISSING: "missing",
    CaseChange.STILL_FAILING: "still failing",
    CaseChange.STILL_PASSING: "still passing",
}


CHANGED = frozenset(
    {
        CaseChange.PASS_TO_FAIL,
        CaseChange.FAIL_TO_PASS,
        CaseChange.NEW,
        CaseChange.MISSING,
    }
)


_CHANGE_RANK = {change: rank for rank, change in enumerate(CaseChange)}


@dataclass(frozen=True, slots=True)
class CaseRow:
    """One case of a run without its artifact: what the case table needs."""

    case_id: str
    passed: bool
    latency_ms: float | None
    stimulus_kind: str
    affordance: str
    tags: tuple[str, ...]
    error: str


@dataclass(frozen=True, slots=True)
class CaseSide:
    run_id: str
    passed: bool
    latency_ms: float | None
    error: str


@dataclass(frozen=True, slots=True)
class CaseDiff:
    """One case on both sides; ``base``/``candidate`` is None where absent."""

    benchmark_id: str
    case_id: str
    change: CaseChange
    base: CaseSide | None
    candidate: CaseSide | None
    stimulus_kind: str
    affordance: str
    tags: tuple[str, ...]

    @property
    def change_label(self) -> str:
        return CHANGE_LABELS[self.change]

    @property
    def is_changed(self) -> bool:
        return self.change in CHANGED

    @property
    def latency_delta_ms(self) -> float | None:
        if self.base is None or self.candidate is None:
            return None
        if self.base.latency_ms is None or self.candidate.latency_ms is None:
            return None
        return round(self.candidate.latency_ms - self.base.latency_ms, 3)


@dataclass(frozen=True, slots=True)
class MetricRow:
    """One metric side by side; ``outcome`` is a ``DeltaOutcome`` value, or
    ``only_base``/``only_candidate`` for a metric on one side only."""

    name: str
    base: float | None
    candidate: float | None
    delta: float | None
    direction: MetricDirection
    outcome: str


@dataclass(frozen=True, slots=True)
class CaseFilter:
    """The case table's filters; empty strings mean "any"."""

    only: str = ""  # "" | "regressions" | "changed" | "flipped" (both flips)
    change: str = ""
    benchmark: str = ""
    stimulus_kind: str = ""
    affordance: str = ""
    tag: str = ""

    def to_query(self) -> list[tuple[str, str]]:
        pairs = (
            ("only", self.only),
            ("change", self.change),
            ("benchmark", self.benchmark),
            ("kind", self.stimulus_kind),
            ("affordance", self.affordance),
            ("tag", self.tag),
        )
        return [(key, value) for key, value in pairs if value]


def numeric_metrics(values: Mapping[str, Any]) -> dict[str, float]:
    """The finite numbers of a metrics map (a bool is not a metric)."""
    return {
        name: value
        for name, value in values.items()
        if type(value) in (int, float) and math.isfinite(value)
    }


def case_change(base: bool | None, candidate: bool | None) -> CaseChange | None:
    """How a case changed from ``base`` to ``candidate`` (each: passed, or
    None where the run has no such case); None when neither has it."""
    if base is None and candidate is None:
        return None
    if base is None:
        return CaseChange.NEW
    if candidate is None:
        return CaseChange.MISSING
    if base and not candidate:
        return CaseChange.PASS_TO_FAIL
    if not base and candidate:
        return CaseChange.FAIL_TO_PASS
    if candidate:
        return CaseChange.STILL_PASSING
    return CaseChange.STILL_FAILING


def diff_cases(
    benchmark_id: str,
    *,
    base: Sequence[CaseRow],
    candidate: Sequence[CaseRow],
    base_run_id: str,
    candidate_run_id: str,
) -> list[CaseDiff]:
    """Every case of either run with how it changed; sorted by change (flips
    first), then case id. Filter columns come from the candidate's row, else
    the base's."""
    before = {row.case_id: row for row in base}
    after = {row.case_id: row for row in candidate}
    side = CaseSide
    diffs: list[CaseDiff] = []
    # This loop runs once per case of either run (200,000 at 2 x 10,000 x
    # K=10): the change is looked up rather than worked out by case_change.
    for case_id in sorted(before.keys() | after.keys()):
        old, new = before.get(case_id), after.get(case_id)
        shown = new if new is not None else old
        assert shown is not None
        change = _CHANGES[
            (old.passed if old is not None else None),
            (new.passed if new is not None else None),
        ]
        diffs.append(
            CaseDiff(
                benchmark_id,
                case_id,
                change,
                side(base_run_id, old.passed, old.latency_ms, old.error)
                if old is not None
                else None,
                side(candidate_run_id, new.passed, new.latency_ms, new.error)
                if new is not None
                else None,
                shown.stimulus_kind,
                shown.affordance,
                shown.tags,
            )
        )
    return diffs


# case_change for every pair of sides.
_CHANGES: dict[tuple[bool | None, bool | None], CaseChange] = {
    (old, new): change
    for old in (True, False, None)
    for new in (True, False, None)
    if (change := case_change(old, new)) is not None
}


def sorted_cases(cases: Iterable[CaseDiff]) -> tuple[CaseDiff, ...]:
    """By change (flips first), then benchmark, then case id: a stable sort
    by case id, then by the other two (sorted input sorts in one pass)."""
    by_id = sorted(cases, key=attrgetter("benchmark_id", "case_id"))
    return tuple(sorted(by_id, key=lambda c: _CHANGE_RANK[c.change]))


def filter_cases(cases: Iterable[CaseDiff], wanted: CaseFilter) -> list[CaseDiff]:
    """The cases matching every non-empty filter of ``wanted``."""
    out: list[CaseDiff] = []
    for case in cases:
        if wanted.only == "regressions" and case.change is not CaseChange.PASS_TO_FAIL:
            continue
        if wanted.only == "changed" and not case.is_changed:
            continue
        if wanted.change and case.change.value != wanted.change:
            continue
        if wanted.benchmark and case.benchmark_id != wanted.benchmark:
            continue
        if wanted.stimulus_kind and case.stimulus_kind != wanted.stimulus_kind:
            continue
        if wanted.affordance and case.affordance != wanted.affordance:
            continue
        if wanted.tag and wanted.tag not in case.tags:
            continue
        out.append(case)
    return out


@dataclass(frozen=True, slots=True)
class FilterOptions:
    benchmarks: tuple[str, ...] = ()
    stimulus_kinds: tuple[str, ...] = ()
    affordances: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    changes: tuple[tuple[str, str], ...] = field(
        default=tuple((c.value, CHANGE_LABELS[c]) for c in CaseChange)
    )


def filter_options(cases: Iterable[CaseDiff]) -> FilterOptions:
    benchmarks: set[str] = set()
    kinds: set[str] = set()
    affordances: set[str] = set()
    tags: set[str] = set()
    for case in cases:
        benchmarks.add(case.benchmark_id)
        if case.stimulus_kind:
            kinds.add(case.stimulus_kind)
        if case.affordance:
            affordances.add(case.affordance)
        tags.update(case.tags)
    return FilterOptions(
        tuple(sorted(benchmarks)),
        tuple(sorted(kinds)),
        tuple(sorted(affordances)),
        tuple(sorted(tags)),
    )


def metric_rows(
    base: Mapping[str, float],
    candidate: Mapping[str, float],
    verdict_metrics: Mapping[str, Any],
) -> list[MetricRow]:
    """Every metric of either side, by name: as the gate judged it where it
    did (``verdict_metrics`` by name), else with the side it is on."""
    rows: list[MetricRow] = []
    for name in sorted(base.keys() | candidate.keys()):
        judged = verdict_metrics.get(name)
        if judged is not None:
            rows.append(
                MetricRow(
                    name,
                    judged.base,
                    judged.candidate,
                    judged.delta,
                    judged.direction,
                    judged.outcome.value,
                )
            )
        else:
            rows.append(
                MetricRow(
                    name,
                    base.get(name),
                    candidate.get(name),
                    None,
                    direction(name),
                    ONLY_BASE if name in base else ONLY_CANDIDATE,
                )
            )
    return rows


# --- keyset paging of the case table ---------------------------------------------

# Where a page of the case table ends: (change rank, benchmark id, case id)
# of its last row; the next page starts after it.
CaseCursor = tuple[int, str, str]

CHANGE_RANKS: tuple[CaseChange, ...] = tuple(CaseChange)


class CursorError(ValueError):
    """A case-table cursor that is not one this site wrote."""


def cursor_text(cursor: CaseCursor) -> str:
    """A cursor as the ``after`` parameter of a URL (URL-safe, no padding)."""
    raw = json.dumps(list(cursor), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def cursor_from_text(text: str) -> CaseCursor:
    """The cursor ``cursor_text`` wrote; ``CursorError`` for anything else."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise CursorError("after is not a cursor of this case table") from error
    if (
        not isinstance(value, list)
        or len(value) != 3
        or type(value[0]) is not int
        or not 0 <= value[0] < len(CHANGE_RANKS)
        or not all(isinstance(part, str) for part in value[1:])
    ):
        raise CursorError("after is not a cursor of this case table")
    return value[0], value[1], value[2]
