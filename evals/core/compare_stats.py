"""What the pages show of a paired comparison: one verdict, worded and
coloured the same on the compare page, the trends page and the overview.

The numbers come from ``evals.core.stats_paired`` (and the ``--stat`` gate,
``evals.core.gate_stat``); this module only decides how they read:

- ``pass_rate_comparison``: two stored runs' pass rates, paired by scenario
  when both have case results, else from their counts (unpaired), with the
  pass rate's registered margin: the verdict the compare page (and
  ``benchmark_ci_gate --stat``) gives the same two runs;
- ``VerdictText``: a comparison as the pages write it (delta, interval, n,
  K, MDE, McNemar, the verdict word and its CSS class, what it asks for);
- ``case_link_ids``: for each scenario of a flip, the case id that opens
  its two outputs side by side.

Pure: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from evals.core.gate import format_number
from evals.core.metric_registry import threshold
from evals.core.stats import group_cases, split_epoch
from evals.core.stats_paired import (
    PairedComparison,
    Verdict,
    compare,
    compare_proportions,
)

PASS_RATE = "passRate"  # noqa: S105 - a metric name

VERDICT_CLASSES = {
    Verdict.REGRESSION: "verdict-regression",
    Verdict.IMPROVEMENT: "verdict-improvement",
    Verdict.NO_CHANGE: "verdict-no-change",
    Verdict.INCONCLUSIVE: "verdict-inconclusive",
}

# What each word tells the reader, beside it on the pages.
VERDICT_MEANINGS = {
    Verdict.REGRESSION: "worse, beyond the margin, and the interval shows it",
    Verdict.IMPROVEMENT: "better, beyond the margin, and the interval shows it",
    Verdict.NO_CHANGE: "the whole interval lies within the margin",
    Verdict.INCONCLUSIVE: "too few scenarios or repeats to tell",
}


@dataclass(frozen=True, slots=True)
class Outcomes:
    """A stored run's case results as the statistics read them."""

    case_ids: tuple[str, ...]
    passed: tuple[bool, ...]


def pass_rate_comparison(
    base: Outcomes | None,
    candidate: Outcomes | None,
    *,
    base_counts: tuple[int, int],
    candidate_counts: tuple[int, int],
) -> PairedComparison:
    """The pass rate of ``candidate`` against ``base`` (module docstring);
    ``counts`` are ``(passed, total)``. ``StatInputError`` (naming the field)
    when the case ids cannot be grouped into scenarios."""
    margin = threshold(PASS_RATE)
    if base is None or candidate is None or not base.case_ids or not candidate.case_ids:
        return compare_proportions(base_counts, candidate_counts, margin=margin)
    epochs_a = group_cases(base.case_ids).epochs([float(p) for p in base.passed])
    epochs_b = group_cases(candidate.case_ids).epochs(
        [float(p) for p in candidate.passed]
    )
    return compare(epochs_a, epochs_b, metric=PASS_RATE, margin=margin)


def shown_interval(comparison: PairedComparison) -> tuple[float, float]:
    """The interval as the pages draw it: a pass rate's change cannot leave
    [-1, 1], so a t interval reaching past it is cut there (the JSON keeps
    the interval as computed)."""
    low, high = comparison.interval.low, comparison.interval.high
    if comparison.metric == PASS_RATE and math.isfinite(low) and math.isfinite(high):
        return max(low, -1.0), min(high, 1.0)
    return low, high


def shown_rate_interval(low: float, high: float) -> tuple[float, float]:
    """A pass rate's interval cut to [0, 1], where a rate lives."""
    return max(low, 0.0), min(high, 1.0)


def _number(value: float, *, signed: bool = False) -> str:
    if not math.isfinite(value):
        return "n/a"
    text = format_number(value)
    return f"+{text}" if signed and value > 0 and text != "0" else text


def _p(value: float) -> str:
    if value < 0.001:
        return "< 0.001"
    return f"{value:.3f}"


@dataclass(frozen=True, slots=True)
class VerdictText:
    """One comparison as every page writes it."""

    benchmark_id: str
    metric: str
    word: str
    css: str
    meaning: str
    n: int
    k: int
    base: str
    candidate: str
    delta: str
    interval: str
    se: str
    mde: str
    p_value: str
    p_adjusted: str
    adjusted: bool
    mcnemar: str
    margin: str
    underpowered: bool
    advice: str
    only_base: tuple[str, ...]
    only_candidate: tuple[str, ...]
    paired: bool


def verdict_text(
    benchmark_id: str,
    comparison: PairedComparison,
    *,
    paired: bool = True,
    adjusted: bool = False,
) -> VerdictText:
    c = comparison
    if c.interval.method == "none":
        interval = "no interval (fewer than 2 scenarios)"
    else:
        low, high = shown_interval(c)
        interval = f"[{_number(low, signed=True)}, {_number(high, signed=True)}]"
    advice = ""
    if c.verdict is Verdict.INCONCLUSIVE:
        advice = (
            "Add scenarios or repeats: changes smaller than "
            f"{_number(c.mde)} cannot be told from noise with these runs."
            if math.isfinite(c.mde)
            else "Add scenarios: with fewer than 2 shared scenarios there is "
            "no interval."
        )
    mcnemar = ""
    if c.mcnemar is not None:
        mcnemar = (
            f"{c.mcnemar.b} pass→fail, {c.mcnemar.c} fail→pass, "
            f"p {_p(c.mcnemar.p_value)}"
        )
    return VerdictText(
        benchmark_id=benchmark_id,
        metric=c.metric,
        word=c.verdict.value,
        css=VERDICT_CLASSES[c.verdict],
        meaning=VERDICT_MEANINGS[c.verdict],
        n=c.n,
        k=c.k,
        base=_number(c.base_mean),
        candidate=_number(c.candidate_mean),
        delta=_number(c.delta, signed=True),
        interval=interval,
        se=_number(c.se),
        mde=_number(c.mde),
        p_value=_p(c.p_value),
        p_adjusted=_p(c.p_adjusted),
        adjusted=adjusted,
        mcnemar=mcnemar,
        margin=_number(c.margin),
        underpowered=c.underpowered,
        advice=advice,
        only_base=c.only_base,
        only_candidate=c.only_candidate,
        paired=paired,
    )


def case_link_ids(scenarios: Iterable[str], case_ids: Sequence[str]) -> dict[str, str]:
    """For each of ``scenarios``, the first of ``case_ids`` (sorted) that
    is one of its epochs: the case the side-by-side page opens."""
    wanted = set(scenarios)
    known = set(case_ids)
    # At K = 1 a scenario's one case id is the scenario itself.
    found = {scenario: scenario for scenario in wanted if scenario in known}
    wanted -= set(found)
    for case_id in case_ids if wanted else ():
        scenario = split_epoch(case_id)[0]
        if scenario in wanted and (scenario not in found or case_id < found[scenario]):
            found[scenario] = case_id
    return found
