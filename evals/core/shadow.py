"""Shadow recall records (the eval-store contract): validation and where a record lives.

Decides whether a shadow recall record is valid, reporting every problem with
its JSON path and the seed's message (``recallMode must be one of
no_recall|minimal|full|graph_mode``, ``injected must be a boolean``,
``durationMs must be a non-negative number``, ...). Records are compact by
construction: hashes and counts only. There is no field for raw prompt or
memory text and unknown fields are refused, so such text cannot be stored.

A record lives at ``shadow/<recordedAt[0:10]>/<traceId>.json``; traceId is a
safe path segment. Valid documents take a hand-written fast path (a property
test keeps it no looser than the schema); everything else goes through JSON
Schema and the full checks, which alone decide the problems reported.
"""

from __future__ import annotations

import math
from typing import Any

from core.errors import SchemaProblem
from core.schemas import load_validator, validate
from evals.core.format_rules import (
    MessageTable,
    is_safe_path_segment,
    non_finite_problems,
    parse_timestamp,
    raise_if_problems,
    translate_problems,
)
from evals.core.formats_types import RecallMode, RecallSource, ShadowRecord

SCHEMA_NAME = "shadow_record.v1.schema.json"

_NON_EMPTY = "{field} must be a non-empty string"
_NUMBER = "{field} must be a non-negative number"
_NUMBER_FIELDS = (
    "promptLength",
    "retrievalQueryLength",
    "recallResultLimit",
    "recalledMemoryCount",
    "contextChars",
    "durationMs",
)
_STRING_FIELDS = (
    "traceId",
    "recordedAt",
    "sessionKey",
    "promptHash",
    "retrievalQueryHash",
)
MESSAGES: MessageTable = {
    "$": "eval shadow recall record must be an object",
    "$.schemaVersion": "schemaVersion must be 1",
    **{f"$.{name}": _NON_EMPTY for name in _STRING_FIELDS},
    **{f"$.{name}": _NUMBER for name in _NUMBER_FIELDS},
    "$.recallMode": {
        "*": _NON_EMPTY,
        "enum": "recallMode must be one of no_recall|minimal|full|graph_mode",
    },
    "$.source": {
        "*": _NON_EMPTY,
        "enum": "source must be one of none|hot_qmd|hot_embedding|cold_fallback"
        "|recent_scan",
    },
    "$.injected": "injected must be a boolean",
    "$.memoryIds": "memoryIds must be an array of non-empty strings",
    "$.memoryIds[]": "{parent} must be an array of non-empty strings",
}

_KEYS = frozenset(("schemaVersion", "injected", "recallMode", "source", "memoryIds"))
_KEYS = _KEYS | frozenset(_NUMBER_FIELDS) | frozenset(_STRING_FIELDS)
# Plain dict lookups: calling an Enum class costs more than the whole check.
_MODES = {mode.value: mode for mode in RecallMode}
_SOURCES = {source.value: source for source in RecallSource}


def fast_valid(document: Any) -> bool:
    """True only for documents that certainly pass every rule.

    ``False`` proves nothing: ask the ``*_problems`` function then.
    Written out by hand because it runs once per stored record.
    """
    if type(document) is not dict or document.keys() != _KEYS:
        return False
    version = document["schemaVersion"]
    if type(version) is not int or version != 1:
        return False
    for name in _STRING_FIELDS:
        value = document[name]
        if type(value) is not str or not value.strip():
            return False
    for name in _NUMBER_FIELDS:
        value = document[name]
        kind = type(value)
        if kind is int:
            if value < 0:
                return False
        elif kind is not float or not 0 <= value < math.inf:
            return False
    memory_ids = document["memoryIds"]
    if type(memory_ids) is not list:
        return False
    for memory_id in memory_ids:
        if type(memory_id) is not str or not memory_id.strip():
            return False
    try:
        return (
            document["recallMode"] in _MODES
            and document["source"] in _SOURCES
            and type(document["injected"]) is bool
            and is_safe_path_segment(document["traceId"])
            and parse_timestamp(document["recordedAt"]) is not None
        )
    except TypeError:
        return False


def shadow_record_problems(document: Any) -> list[SchemaProblem]:
    """Every problem of a shadow record document, sorted by path (empty: valid)."""
    raw = validate(load_validator("evals.core", SCHEMA_NAME), document)
    raw.extend(non_finite_problems(document))
    problems = translate_problems(
        raw, messages=MESSAGES, document_name="eval shadow recall record"
    )
    if not isinstance(document, dict):
        return problems
    bad = {problem.path for problem in problems}
    trace_id = document.get("traceId")
    if (
        "$.traceId" not in bad
        and isinstance(trace_id, str)
        and not is_safe_path_segment(trace_id)
    ):
        problems.append(
            SchemaProblem(
                "$.traceId",
                "unsafe_path_segment",
                "traceId must be a safe path segment",
            )
        )
    recorded_at = document.get("recordedAt")
    if (
        "$.recordedAt" not in bad
        and isinstance(recorded_at, str)
        and parse_timestamp(recorded_at) is None
    ):
        problems.append(
            SchemaProblem(
                "$.recordedAt",
                "invalid_timestamp",
                "recordedAt must be a valid ISO timestamp",
            )
        )
    return sorted(problems, key=lambda p: (p.path, p.code, p.message))


def validate_shadow_record(document: Any) -> ShadowRecord:
    """Parse a shadow recall record, raising ``SchemaInvalid`` with every problem.

    ``validate_shadow_record(x).to_wire() == x`` for every valid ``x``.
    """
    if not fast_valid(document):
        raise_if_problems(shadow_record_problems(document), "eval shadow recall record")
    return ShadowRecord(
        trace_id=document["traceId"],
        recorded_at=document["recordedAt"],
        session_key=document["sessionKey"],
        prompt_hash=document["promptHash"],
        prompt_length=document["promptLength"],
        retrieval_query_hash=document["retrievalQueryHash"],
        retrieval_query_length=document["retrievalQueryLength"],
        recall_mode=_MODES[document["recallMode"]],
        recall_result_limit=document["recallResultLimit"],
        source=_SOURCES[document["source"]],
        recalled_memory_count=document["recalledMemoryCount"],
        injected=document["injected"],
        context_chars=document["contextChars"],
        memory_ids=tuple(document["memoryIds"]),
        duration_ms=document["durationMs"],
    )


def shadow_relative_path(record: ShadowRecord) -> str:
    """``shadow/YYYY-MM-DD/<traceId>.json`` inside an eval store."""
    return f"shadow/{record.day}/{record.trace_id}.json"
