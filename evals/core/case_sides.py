"""One case of two runs side by side: the rows the compare page's
drill-down shows, built from typed records (never the wire's keys).

A scenario case is read as its ``ScenarioArtifact``; other cases (pack
cases, gridworld episodes) as their details, one field a row. Each side is a
list of ``CaseField``; ``side_by_side`` lines the two up by label and marks
the rows whose texts differ. Pure: no Django.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evals.core.gate import format_number
from evals.core.scenario_artifact import ScenarioArtifact

ABSENT = "—"


@dataclass(frozen=True, slots=True)
class CaseSide:
    """What one side shows of a stored case, whatever its kind."""

    passed: bool
    latency_ms: float | None
    stimulus_kind: str
    affordance: str
    tags: tuple[str, ...]
    error: str
    artifact: ScenarioArtifact | None
    details: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class CaseField:
    """One labelled value of one side; ``pre`` keeps its line breaks."""

    label: str
    text: str
    pre: bool = False


@dataclass(frozen=True, slots=True)
class SideBySideRow:
    """One row of the drill-down table."""

    label: str
    base: str
    candidate: str
    pre: bool
    differs: bool


def case_fields(side: CaseSide | None, *, hidden: str) -> list[CaseField]:
    """The fields of one side (none for a case the run does not have);
    ``hidden`` names a details key left out of the generic rows, its
    mapping shown one entry a row as ``metric <name>``."""
    if side is None:
        return []
    latency = side.latency_ms
    fields = [
        CaseField("Result", _result(side)),
        CaseField(
            "Latency", ABSENT if latency is None else f"{format_number(latency)} ms"
        ),
        CaseField(
            "Stimulus",
            " · ".join(v for v in (side.stimulus_kind, side.affordance) if v) or ABSENT,
        ),
        CaseField("Tags", ", ".join(side.tags) or ABSENT),
    ]
    artifact = side.artifact
    if artifact is None:
        fields.append(CaseField("Error", side.error or ABSENT))
        return fields + _detail_fields(side.details, hidden=hidden)
    model = artifact.model
    scenario = artifact.scenario
    return fields + [
        CaseField("Goal", _goal(artifact)),
        CaseField("Grounding", _grounding(artifact)),
        CaseField(
            "convertEligible",
            f"{'true' if artifact.convert_eligible else 'false'} · "
            f"{artifact.convert_eligible_reason or ABSENT}",
        ),
        CaseField("Error", side.error or artifact.error or ABSENT),
        CaseField("Output (thought)", artifact.thought or ABSENT, pre=True),
        CaseField("Model output (raw)", artifact.raw_output or ABSENT, pre=True),
        CaseField(
            "Rendered frame",
            (artifact.frame.text if artifact.frame else "") or ABSENT,
            pre=True,
        ),
        CaseField(
            "Model",
            f"{model.model_id} · sampler {model.sampler} · seed {model.seed}"
            if model is not None
            else f"{ABSENT} · sampler {ABSENT} · seed {ABSENT}",
        ),
        CaseField(
            "Scenario",
            f"version {scenario.version} · sha256 {scenario.sha256[:12]}",
        ),
    ]


def side_by_side(
    left: Sequence[CaseField], right: Sequence[CaseField]
) -> list[SideBySideRow]:
    """Both sides by label, in the base's order then the candidate's new
    labels; a label one side lacks reads ``—``."""
    base = {f.label: f for f in left}
    candidate = {f.label: f for f in right}
    labels = list(base) + [label for label in candidate if label not in base]
    missing = CaseField("", ABSENT)
    rows = []
    for label in labels:
        b = base.get(label, missing)
        c = candidate.get(label, missing)
        rows.append(
            SideBySideRow(
                label=label,
                base=b.text,
                candidate=c.text,
                pre=b.pre or c.pre,
                differs=b.text != c.text,
            )
        )
    return rows


def _result(side: CaseSide) -> str:
    if side.passed:
        return "pass"
    reasons = (
        side.artifact.fail_reasons
        if side.artifact
        else tuple(side.details.get("failReasons") or ())
    )
    return f"fail ({', '.join(reasons)})" if reasons else "fail"


def _goal(artifact: ScenarioArtifact) -> str:
    goal = artifact.extracted_goal
    if goal:
        parts = [goal.get("action"), goal.get("target"), goal.get("amount")]
        return " ".join(str(p) for p in parts if p not in (None, ""))
    reason = artifact.goal_fail_reason
    return f"none ({reason})" if reason else "none"


def _grounding(artifact: ScenarioArtifact) -> str:
    grounding = artifact.grounding
    verdict = grounding.passed
    head = ABSENT if verdict is None else ("pass" if verdict else "fail")
    extra = [str(v) for v in (grounding.category, grounding.reason) if v]
    return f"{head} · {' · '.join(extra)}" if extra else head


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return format_number(value)
    if value is None:
        return ABSENT
    if isinstance(value, str):
        return value or ABSENT
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, separators=(", ", ": ")
    )


def _detail_fields(details: Mapping[str, Any], *, hidden: str) -> list[CaseField]:
    """A case's details one field a row (a gridworld episode's metrics one
    metric a row), so the two sides line up and a differing value is marked,
    instead of two JSON blobs side by side."""
    fields = [
        CaseField(key, _value_text(value))
        for key, value in sorted(details.items())
        if key != hidden
    ]
    inputs = details.get(hidden)
    if isinstance(inputs, dict):
        fields += [
            CaseField(f"metric {name}", _value_text(value))
            for name, value in sorted(inputs.items())
        ]
    return fields
