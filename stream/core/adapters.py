"""Model adapters: one interface for every source of model output.

Decides what text "the model" returns for a prompt. Three implementations
share ``ModelAdapter``: ``ScriptedAdapter`` (recorded outputs from JSONL, for
tests and replays, here), ``stream.core.baseline.BaselineAdapter`` (a
deterministic built-in policy, the demo default) and, outside the core
because it does network I/O,
``stream.adapters_http.OpenAIChatAdapter``. Invariants:

- Adapters in the core never read the clock: they return ``latency_ms`` only
  when they know it (a recorded latency) and leave timing to the caller's
  injected clock otherwise.
- Every adapter reports the call it made (``Generation.call``, a
  ``ModelCall``); the built-in ones as provider ``evalsite`` with the
  adapter's name as the model and no usage (nothing was counted).
- Same prompt, sampler, seed and scenario give the same output (the
  baseline's rules: ``stream.core.baseline``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

from core.errors import CoreError, NotFound
from stream.core.model_calls import PROVIDER_BUILTIN, sampled_call
from stream.core.types import (
    Generation,
    ModelCall,
    RenderedFrame,
    SamplerProfile,
)

SAMPLERS: Final[dict[str, SamplerProfile]] = {
    "low-variance": SamplerProfile("low-variance", 0.3, 0.9, 512),
    "standard": SamplerProfile("standard", 0.7, 0.95, 512),
    "creative": SamplerProfile("creative", 0.9, 1.0, 768),
}
DEFAULT_SAMPLER: Final = "standard"


class ModelCallFailed(CoreError):
    """A model call that failed; ``call`` records it (attempts, timings, the
    error) when the adapter knows it, so a failed call is stored too."""

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        details: dict[str, Any] | None = None,
        call: ModelCall | None = None,
    ) -> None:
        super().__init__(message, code=code, details=details)
        self.call = call


class ModelUnavailable(ModelCallFailed):
    """The model could not be reached (connection refused, timeouts, 5xx)."""

    code = "model_unavailable"


class ModelError(ModelCallFailed):
    """The model answered, but not with a usable completion."""

    code = "model_error"


class ScriptInvalid(CoreError):
    """A scripted-output file has bad lines; ``details`` lists every one."""

    code = "script_invalid"


class ScriptMissing(NotFound):
    """No scripted output exists for the requested scenario."""

    code = "script_missing"


class ModelAdapter(Protocol):
    """What the pipeline needs from a model.

    ``frame`` is the rendered frame inside ``prompt``, passed for adapters that
    want it (the baseline reads it; HTTP adapters ignore it). ``scenario_id``
    selects recorded output in replays. Implementations raise ``CoreError``
    subclasses only (``ModelUnavailable``, ``ModelError``, ``ScriptMissing``).
    """

    @property
    def model_id(self) -> str: ...

    def generate(
        self,
        prompt: str,
        *,
        sampler: SamplerProfile,
        seed: int,
        scenario_id: str | None = None,
        frame: RenderedFrame | None = None,
    ) -> Generation: ...


# --- scripted ----------------------------------------------------------------

_SCRIPT_KEYS: Final = frozenset({"scenario_id", "output", "latency_ms"})


@dataclass(frozen=True, slots=True)
class ScriptedOutput:
    output: str
    latency_ms: float | None


def _script_line_error(doc: Any) -> str | None:
    if not isinstance(doc, dict):
        return "line is not a JSON object"
    unknown = sorted(set(doc) - _SCRIPT_KEYS)
    if unknown:
        return "unknown properties: " + ", ".join(unknown)
    scenario_id = doc.get("scenario_id")
    if not isinstance(scenario_id, str) or not scenario_id:
        return "scenario_id must be a non-empty string"
    if not isinstance(doc.get("output"), str):
        return "output must be a string"
    latency = doc.get("latency_ms")
    if latency is not None and (
        isinstance(latency, bool) or not isinstance(latency, int | float) or latency < 0
    ):
        return "latency_ms must be a number >= 0"
    return None


@dataclass(frozen=True, slots=True)
class ScriptedAdapter:
    """Returns recorded output per scenario id (JSONL replays and tests)."""

    outputs: dict[str, ScriptedOutput]
    source: str = "<lines>"
    name: str = field(default="scripted")

    @classmethod
    def from_path(cls, path: str | Path) -> ScriptedAdapter:
        """Load ``{"scenario_id", "output", "latency_ms"?}`` lines from ``path``.

        Raises ``ScriptInvalid`` naming the path and every bad line (blank
        lines are skipped but counted), or ``CoreError`` when unreadable.
        """
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise CoreError(
                f"cannot read script {path}: {exc.strerror or exc}",
                code="script_unreadable",
                details={"path": str(path)},
            ) from exc
        return cls.from_lines(text.splitlines(), source=str(path))

    @classmethod
    def from_lines(
        cls, lines: Iterable[str], *, source: str = "<lines>"
    ) -> ScriptedAdapter:
        """Parse JSONL ``lines``; see ``from_path`` for the contract."""
        outputs: dict[str, ScriptedOutput] = {}
        errors: list[dict[str, Any]] = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append({"line": number, "message": f"invalid JSON: {exc.msg}"})
                continue
            problem = _script_line_error(doc)
            if problem is None and doc["scenario_id"] in outputs:
                problem = f"duplicate scenario_id {doc['scenario_id']!r}"
            if problem is not None:
                errors.append({"line": number, "message": problem})
                continue
            latency = doc.get("latency_ms")
            outputs[doc["scenario_id"]] = ScriptedOutput(
                doc["output"], None if latency is None else float(latency)
            )
        if errors:
            first = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise ScriptInvalid(
                f"{source}:{first['line']}: {first['message']}{more}",
                details={"path": source, "errors": errors},
            )
        return cls(outputs=outputs, source=source)

    @property
    def model_id(self) -> str:
        return f"scripted:{self.source}"

    def uncovered(self, scenario_ids: Iterable[str]) -> tuple[str, ...]:
        """The ids of ``scenario_ids`` this script has no output for, in the
        order given (each once)."""
        return tuple(dict.fromkeys(s for s in scenario_ids if s not in self.outputs))

    def generate(
        self,
        prompt: str,
        *,
        sampler: SamplerProfile,
        seed: int,
        scenario_id: str | None = None,
        frame: RenderedFrame | None = None,
    ) -> Generation:
        """The recorded output for ``scenario_id``; ``ScriptMissing`` if none."""
        recorded = self.outputs.get(scenario_id) if scenario_id is not None else None
        if recorded is None:
            raise ScriptMissing(
                f"no scripted output for scenario_id={scenario_id} in {self.source}",
                details={"scenario_id": scenario_id, "path": self.source},
            )
        call = sampled_call(
            PROVIDER_BUILTIN,
            self.name,
            sampler=sampler,
            seed=seed,
            latency_ms=recorded.latency_ms,
            finish_reason="stop",
        )
        return Generation(recorded.output, recorded.latency_ms, call)
