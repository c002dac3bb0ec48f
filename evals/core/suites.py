"""Loading scenario suites: JSONL read from disk on every call (EV-C1, EV-C2).

Decides whether a suite file is valid and turns it into ``Scenario``s.

Invariants:
- Hot swap: ``load_suite`` reads the file bytes on every call and caches
  no file content, so an edited file shows its new ``line_count`` and
  ``suite_sha256`` on the next call with no restart.
- ``suite_sha256`` is the sha256 of the exact file bytes (blank lines and
  trailing newlines included: any byte change is a new version).
- Lines are split on ``\\n`` only (a trailing ``\\r`` is dropped). A line is
  blank when it holds only whitespace (JavaScript's, U+00A0 and the like
  included, as the upstream harness skips them). Blank lines are skipped, not numbered
  away: every reported line number is the *physical* 1-based line number in
  the file, so an editor can jump to it, while ``line_count`` counts only
  the non-blank lines.
- Every invalid line is reported, never only the first: bad UTF-8, bad JSON,
  every schema problem of the line (unknown properties included) and a
  duplicate ``scenario_id`` (reported on the later line). A file with no
  scenario at all is invalid as a whole (reported as line 0).
- JSON is read as the upstream harness reads it (``JSON.parse``): of two
  equal keys in one object the last wins; a line starting with a UTF-8
  byte-order mark (a file saved "with BOM") is invalid JSON; ``NaN`` and
  ``Infinity`` are not JSON numbers.
- Same bytes in, same ``LoadedSuite`` out.
- A frame is validated once per distinct content: a line whose frame is
  one already found valid only has the rest of its object validated. Any
  problem sends the line through the full validation, so the problems
  reported never depend on what was validated before.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from core.canonical import digest, sha256_hex
from core.errors import NotFound, SchemaProblem
from core.schemas import load_validator, validate
from evals.core.format_rules import js_trim
from evals.core.suite_types import (
    ActionAffordance,
    InvalidLine,
    LoadedSuite,
    Oracle,
    Scenario,
    Stimulus,
    StimulusKind,
    SuiteInvalid,
)

SCENARIO_SCHEMA = "scenario.v1.schema.json"
_BOM = b"\xef\xbb\xbf"


def read_suite_bytes(path: Path) -> bytes:
    """The bytes of the suite file at ``path``; ``NotFound`` when the file
    does not exist (or is not a file)."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
        raise NotFound(
            f"suite file not found: {path}",
            code="suite_not_found",
            details={"path": str(path)},
        ) from exc


def load_suite(path: Path) -> LoadedSuite:
    """Read, validate and parse the suite at ``path``.

    Raises ``NotFound`` when the file does not exist (or is not a file) and
    ``SuiteInvalid`` listing every invalid line when any line is invalid;
    nothing partial is returned.
    """
    return parse_suite(read_suite_bytes(path), path=path)


def parse_suite(data: bytes, *, path: Path) -> LoadedSuite:
    """Validate and parse suite bytes; ``path`` names the suite in results.

    Same contract as ``load_suite`` minus the file read.
    """
    suite_sha256 = sha256_hex(data)
    validator = load_validator("evals.core", SCENARIO_SCHEMA)

    scenarios: list[Scenario] = []
    invalid: list[InvalidLine] = []
    first_line_of: dict[str, int] = {}
    line_count = 0
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if _is_blank(raw):
            continue
        line_count += 1
        doc, problems = _decode_line(raw)
        if not problems and not _is_valid_fast(doc):
            problems = validate(validator, doc)
        scenario_id = doc.get("scenario_id") if isinstance(doc, dict) else None
        if isinstance(scenario_id, str):
            if scenario_id in first_line_of:
                problems.append(
                    SchemaProblem(
                        "$.scenario_id",
                        "duplicate_scenario_id",
                        f"duplicate scenario_id {scenario_id!r} "
                        f"(first defined on line {first_line_of[scenario_id]})",
                    )
                )
                problems.sort(key=lambda p: (p.path, p.code, p.message))
            else:
                first_line_of[scenario_id] = number
        if problems:
            invalid.append(InvalidLine(line=number, errors=tuple(problems)))
        else:
            scenarios.append(_scenario(doc, line=number))

    if not invalid and not scenarios:
        invalid.append(
            InvalidLine(
                line=0,
                errors=(SchemaProblem("$", "empty_suite", "suite has no scenarios"),),
            )
        )
    if invalid:
        raise SuiteInvalid(
            path=path,
            invalid_lines=tuple(invalid),
            line_count=line_count,
            suite_sha256=suite_sha256,
        )
    return LoadedSuite(
        path=path,
        suite_id=path.stem,
        line_count=line_count,
        suite_sha256=suite_sha256,
        scenarios=tuple(scenarios),
    )


# Frames already found valid, by their canonical text (content-addressed):
# suites repeat a few situation frames under many stimuli, and the frame is
# most of the cost of validating a line. Only validity under the fixed
# schema is kept, never a file's content, so hot swap is unaffected.
_VALID_FRAMES: dict[str, None] = {}
VALID_FRAMES_CACHE_SIZE = 4096


@cache
def _split_validators() -> tuple[Draft202012Validator, Draft202012Validator]:
    """The scenario schema without its frame, and the frame schema alone."""
    schema = load_validator("evals.core", SCENARIO_SCHEMA).schema
    defs = schema["$defs"]
    shell = {
        **schema,
        "properties": {**schema["properties"], "frame": {"type": "object"}},
    }
    frame = {**defs["frame"], "$defs": defs}
    return Draft202012Validator(shell), Draft202012Validator(frame)


@cache
def _compiled_validator() -> Any:
    """The scenario schema compiled by jsonschema-rs (~100x faster than
    jsonschema at saying valid or not), or None where it is not installed."""
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    schema = load_validator("evals.core", SCENARIO_SCHEMA).schema
    return jsonschema_rs.validator_for(schema)


def _is_valid_fast(doc: Any) -> bool:
    """True only when ``doc`` is a valid scenario; False means "validate it
    in full" (the full validation then lists every problem exactly as it
    always did).

    The compiled validator answers first; it is never more lenient than
    jsonschema on these schemas (the one difference: Python's ``$`` also
    matches before a final newline, which only sends such a line to the
    full validation). Without it, frames are validated once per content.
    """
    compiled = _compiled_validator()
    if compiled is not None:
        return bool(compiled.is_valid(doc))
    shell, frame_validator = _split_validators()
    if not shell.is_valid(doc):
        return False
    frame = doc["frame"]
    key = json.dumps(frame, sort_keys=True, ensure_ascii=False)
    if key in _VALID_FRAMES:
        return True
    if not frame_validator.is_valid(frame):
        return False
    if len(_VALID_FRAMES) >= VALID_FRAMES_CACHE_SIZE:
        _VALID_FRAMES.pop(next(iter(_VALID_FRAMES)))
    _VALID_FRAMES[key] = None
    return True


def scenario_to_wire(scenario: Scenario) -> dict[str, Any]:
    """The suite-line object of ``scenario`` (snake_case, as in the file).

    Round-trips: for every valid line whose optional fields are either absent
    or non-empty, ``scenario_to_wire(parsed) == json.loads(line)``.
    """
    stimulus: dict[str, Any] = {
        "kind": str(scenario.stimulus.kind),
        "strength": scenario.stimulus.strength,
        "action_affordance": str(scenario.stimulus.action_affordance),
    }
    if scenario.stimulus.notes is not None:
        stimulus["notes"] = scenario.stimulus.notes
    oracle: dict[str, Any] = {"oracle_version": scenario.oracle.oracle_version}
    if scenario.oracle.notes is not None:
        oracle["notes"] = scenario.oracle.notes
    doc: dict[str, Any] = {
        "scenario_id": scenario.scenario_id,
        "stimulus": stimulus,
        "frame": scenario.frame_doc,
        "oracle": oracle,
    }
    if scenario.tags:
        doc["tags"] = list(scenario.tags)
    return doc


def _is_blank(raw: bytes) -> bool:
    """Whether a line holds only whitespace, as JavaScript's ``trim`` sees it
    (the upstream harness skips such lines): non-ASCII spaces such as U+00A0
    and U+3000 count too."""
    if not raw.strip():
        return True
    if raw.isascii():
        return False
    try:
        return not js_trim(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return False


def _decode_line(raw: bytes) -> tuple[Any, list[SchemaProblem]]:
    """The JSON value of one line and no problem, or None and why it has none.

    ``null`` is a valid JSON value, so callers test the problem list, not
    the value.
    """
    if raw.startswith(_BOM):
        # The upstream harness reads the file as text with the mark kept, so
        # the line is no JSON there; a suite must load in both places.
        return None, [
            SchemaProblem(
                "$",
                "invalid_json",
                "invalid JSON: the line starts with a UTF-8 byte-order mark "
                "(save the file as UTF-8 without BOM)",
            )
        ]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [
            SchemaProblem(
                "$", "invalid_utf8", f"not valid UTF-8 at byte {exc.start + 1}"
            )
        ]
    try:
        return json.loads(text, parse_constant=_reject_constant), []
    except json.JSONDecodeError as exc:
        return None, [
            SchemaProblem(
                "$", "invalid_json", f"invalid JSON: {exc.msg} at column {exc.colno}"
            )
        ]
    except _NotStrictJson as exc:
        return None, [SchemaProblem("$", "invalid_json", f"invalid JSON: {exc}")]


class _NotStrictJson(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    # NaN slips through minimum/maximum checks; JSON itself has no such values.
    raise _NotStrictJson(f"{name} is not a JSON number")


def _scenario(doc: dict[str, Any], *, line: int) -> Scenario:
    stimulus = doc["stimulus"]
    oracle = doc["oracle"]
    return Scenario(
        scenario_id=doc["scenario_id"],
        stimulus=Stimulus(
            kind=StimulusKind(stimulus["kind"]),
            strength=float(stimulus["strength"]),
            action_affordance=ActionAffordance(stimulus["action_affordance"]),
            notes=stimulus.get("notes"),
        ),
        frame_doc=doc["frame"],
        oracle=Oracle(
            oracle_version=oracle["oracle_version"], notes=oracle.get("notes")
        ),
        tags=tuple(doc.get("tags", ())),
        line=line,
        scenario_sha256=digest(doc),
    )
