"""Whether two runs can be read as "the change and nothing else".

A comparison is meant to show what a change did. Two runs that differ in
how they were run (mode, seed, script, model, suite version, profile,
sampler) can differ for that reason alone, and a run compared with itself
differs in nothing, so its PASS says nothing. This module names those
cases in words for the top of the compare page and its JSON. Pure and
deterministic; configs are the runs' config mappings as stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Final

SHORT_SHA: Final = 12


@dataclass(frozen=True, slots=True)
class ConfigDifference:
    """One way the two runs were configured differently, as shown."""

    field: str
    base: str
    candidate: str

    def as_text(self) -> str:
        return f"{self.field} {self.base} vs {self.candidate}"

    def to_json(self) -> dict[str, str]:
        return {"field": self.field, "base": self.base, "candidate": self.candidate}


def _shown(value: Any) -> str:
    return "none" if value is None or value == "" else str(value)


def _model(config: Mapping[str, Any]) -> Any:
    # A scripted model's id names its script; the script is compared apart.
    model_id = config.get("modelId")
    if isinstance(model_id, str) and model_id.startswith("scripted:"):
        return "scripted"
    return model_id if model_id is not None else config.get("model")


def _script(config: Mapping[str, Any]) -> tuple[Any, str]:
    script = config.get("script")
    name = PurePath(script).name if isinstance(script, str) and script else ""
    return config.get("scriptSha256"), name


def configuration_differences(
    base: Mapping[str, Any],
    candidate: Mapping[str, Any],
    *,
    base_suite_sha256: str = "",
    candidate_suite_sha256: str = "",
) -> tuple[ConfigDifference, ...]:
    """How two runs' configurations differ, in a fixed order: mode, seed,
    script, model, suite version, profile, sampler. Fields neither run
    records (a run posted from a summary has no configuration) are not
    compared."""
    out: list[ConfigDifference] = []

    def compare(field: str, base_value: Any, candidate_value: Any) -> None:
        if base_value != candidate_value:
            out.append(
                ConfigDifference(field, _shown(base_value), _shown(candidate_value))
            )

    recorded = set(base) | set(candidate)
    for key in ("mode", "seed"):
        if key in recorded:
            compare(key, base.get(key), candidate.get(key))
    (base_sha, base_name), (candidate_sha, candidate_name) = (
        _script(base),
        _script(candidate),
    )
    if base_sha != candidate_sha:
        if base_name != candidate_name:
            compare("script", base_name, candidate_name)
        else:
            compare("script", _sha(base_sha), _sha(candidate_sha))
    if recorded & {"model", "modelId"}:
        compare("model", _model(base), _model(candidate))
    if base_suite_sha256 and candidate_suite_sha256:
        compare(
            "suite version",
            base_suite_sha256[:SHORT_SHA],
            candidate_suite_sha256[:SHORT_SHA],
        )
    for key in ("profile", "sampler"):
        if key in recorded:
            compare(key, base.get(key), candidate.get(key))
    return tuple(out)


def _sha(value: Any) -> str:
    return str(value)[:SHORT_SHA] if value else "none"


def same_run_warning(run_id: str) -> str:
    return (
        f"Base and candidate are the same run ({run_id}): nothing can differ, "
        "so this PASS says nothing about a change. Pick two different runs."
    )


def configuration_warning(
    differences: tuple[ConfigDifference, ...], *, benchmark_id: str | None = None
) -> str | None:
    """One sentence naming every difference, or ``None`` when there is
    none; ``benchmark_id`` prefixes it where a page compares several."""
    if not differences:
        return None
    prefix = f"{benchmark_id}: " if benchmark_id else ""
    listed = "; ".join(d.as_text() for d in differences)
    return (
        f"{prefix}the runs were configured differently ({listed}), so their "
        "differences may come from the configuration, not from the change."
    )
