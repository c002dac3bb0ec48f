"""Shadow recall records (the eval-store contract): validation and where a record lives.

Decides whether a shadow recall record is valid, reporting every problem with
its JSON path and the contract's message (``recallMode must be one of
no_recall|minimal|full|graph_mode``, ``injected must be a boolean``,
``durationMs must be a non-negative number``, ...). Records are compact by
construction: hashes and counts only. There is no field for raw prompt or
memory text and unknown fields are refused, so such text cannot be stored.

A record lives at ``shadow/<recordedAt[0:10]>/<traceId>.json``; traceId is a
safe path segment. Valid documents take a hand-written fast path (a property
test keeps it no looser than the schema); everything else goes through JSON
Schema and the full checks, which alone decide the problems reported.
``fast_wire`` is the ingest's fast path: the wire form and instant of a
record that is certainly valid and holds only storable text.
``decode_shadow_batch`` goes one step further for a batch body: it decodes
the JSON bytes straight into typed records (msgspec checks the types, the
key set and the bounds while decoding) and answers only when every record
certainly passes; ``None`` proves nothing and the body takes the ordinary
parser and checks, which alone word refusals.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal, NamedTuple

import msgspec

from core.errors import SchemaProblem
from core.schemas import load_validator, validate
from core.text import NAME_MAX_BYTES, storable_problem
from evals.core.format_rules import (
    NON_NEGATIVE_RANGE,
    NUMBER_LIMIT,
    SAFE_SEGMENT_MAX_CHARS,
    MessageTable,
    fast_timestamp,
    is_safe_path_segment,
    number_problems,
    parse_timestamp,
    raise_if_problems,
    translate_problems,
)
from evals.core.formats_types import (
    SCHEMA_VERSION,
    RecallMode,
    RecallSource,
    ShadowRecord,
)

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
    **{
        f"$.{name}": {
            "*": _NUMBER,
            "maximum": NON_NEGATIVE_RANGE,
            "out_of_range": NON_NEGATIVE_RANGE,
        }
        for name in _NUMBER_FIELDS
    },
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


# Printable ASCII but "/" and "\\", up to the segment limits: such a string is a
# safe path segment unless it is "." or ".." or all spaces (checked apart).
_SAFE_ASCII_SEGMENT = re.compile(
    rf"[ -.0-\[\]-~]{{1,{min(SAFE_SEGMENT_MAX_CHARS, NAME_MAX_BYTES)}}}"
)


def _safe_segment(value: str) -> bool:
    """``is_safe_path_segment``, answered by one regex for plain ASCII ids."""
    if (
        _SAFE_ASCII_SEGMENT.fullmatch(value) is not None
        and value not in (".", "..")
        and not value.isspace()
    ):
        return True
    return is_safe_path_segment(value)


def _fast_instant(document: Any) -> datetime | None:
    """The recordedAt instant of a document that certainly passes every rule,
    else ``None`` (which proves nothing)."""
    if type(document) is not dict or document.keys() != _KEYS:
        return None
    version = document["schemaVersion"]
    if type(version) is not int or version != 1:
        return None
    for name in _STRING_FIELDS:
        value = document[name]
        if type(value) is not str or not value.strip():
            return None
    for name in _NUMBER_FIELDS:
        value = document[name]
        kind = type(value)
        if (kind is not int and kind is not float) or not 0 <= value <= NUMBER_LIMIT:
            return None
    memory_ids = document["memoryIds"]
    if type(memory_ids) is not list:
        return None
    for memory_id in memory_ids:
        if type(memory_id) is not str or not memory_id.strip():
            return None
    try:
        if (
            document["recallMode"] in _MODES
            and document["source"] in _SOURCES
            and type(document["injected"]) is bool
            and _safe_segment(document["traceId"])
        ):
            return parse_timestamp(document["recordedAt"])
    except TypeError:
        return None
    return None


def fast_valid(document: Any) -> bool:
    """True only for documents that certainly pass every rule.

    ``False`` proves nothing: ask the ``*_problems`` function then.
    Written out by hand because it runs once per stored record.
    """
    return _fast_instant(document) is not None


def fast_wire(document: Any) -> tuple[dict[str, Any], datetime] | None:
    """``(validate_shadow_record(document).to_wire(), recordedAt instant)``
    for a document that certainly passes every rule and whose every string
    and integer a database column can store (``core.text``); else ``None``,
    which proves nothing. The ingest's per-record path."""
    recorded_at = _fast_instant(document)
    if recorded_at is None:
        return None
    memory_ids = document["memoryIds"]
    texts = [document[name] for name in _STRING_FIELDS]
    texts += memory_ids
    if storable_problem("".join(texts)) is not None:
        return None
    return {
        "schemaVersion": SCHEMA_VERSION,
        "traceId": document["traceId"],
        "recordedAt": document["recordedAt"],
        "sessionKey": document["sessionKey"],
        "promptHash": document["promptHash"],
        "promptLength": document["promptLength"],
        "retrievalQueryHash": document["retrievalQueryHash"],
        "retrievalQueryLength": document["retrievalQueryLength"],
        "recallMode": document["recallMode"],
        "recallResultLimit": document["recallResultLimit"],
        "source": document["source"],
        "recalledMemoryCount": document["recalledMemoryCount"],
        "injected": document["injected"],
        "contextChars": document["contextChars"],
        "memoryIds": list(memory_ids),
        "durationMs": document["durationMs"],
    }, recorded_at


# --- batch bodies decoded straight into records ------------------------------

# A count: an integer or a float from 0 to NUMBER_LIMIT. JSON has no NaN or
# Infinity.
_Count = (
    Annotated[int, msgspec.Meta(ge=0, le=NUMBER_LIMIT)]
    | Annotated[float, msgspec.Meta(ge=0, le=NUMBER_LIMIT)]
)


# Not empty here; not all whitespace is checked after decoding (a pattern
# here would cost more than the whole decode).
_Text = Annotated[str, msgspec.Meta(min_length=1)]


class WireShadow(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A shadow recall record as decoded by ``decode_shadow_batch``: the
    fields of ``ShadowRecord.to_wire()`` in its order, every one required,
    no other key. Holds only what the type checks alone allow; the rest of
    the rules are ``decode_shadow_batch``'s."""

    schemaVersion: Literal[1]
    traceId: _Text
    recordedAt: _Text
    sessionKey: _Text
    promptHash: _Text
    promptLength: _Count
    retrievalQueryHash: _Text
    retrievalQueryLength: _Count
    recallMode: Literal["no_recall", "minimal", "full", "graph_mode"]
    recallResultLimit: _Count
    source: Literal["none", "hot_qmd", "hot_embedding", "cold_fallback", "recent_scan"]
    recalledMemoryCount: _Count
    injected: bool
    contextChars: _Count
    memoryIds: list[_Text]
    durationMs: _Count


class _WireBatch(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    records: Annotated[list[WireShadow], msgspec.Meta(min_length=1)]


_BATCH_DECODER = msgspec.json.Decoder(_WireBatch)


# A record ``decode_shadow_batch`` proved valid and storable, with its
# recordedAt instant (a plain tuple: a NamedTuple cost 0.17 µs a record).
CheckedShadow = tuple[WireShadow, datetime]


class CheckedShadowBatch(NamedTuple):
    """The records of a batch body, in order, each proved valid and storable."""

    records: list[CheckedShadow]


def decode_shadow_batch(body: bytes) -> CheckedShadowBatch | None:
    """The records of a ``{"records": [...]}`` body whose every record
    certainly passes every rule and holds only storable text, each with its
    recordedAt instant; else ``None``, which proves nothing.

    Accepting here means the standard-library parse of ``body`` gives
    ``{"records": [r.to_wire() for r in ...]}`` and ``fast_wire`` (so the
    full checks) takes every record, values and key order alike.
    """
    try:
        batch = _BATCH_DECODER.decode(body)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    checked: list[CheckedShadow] = []
    for record in batch.records:
        recorded_at = _checked_instant(record)
        if recorded_at is None:
            return None
        checked.append((record, recorded_at))
    return CheckedShadowBatch(checked)


def _checked_instant(record: WireShadow) -> datetime | None:
    """The recordedAt instant of a decoded record that certainly passes
    every rule and holds only storable text, else ``None``."""
    # Types, key set, bounds and empty strings are msgspec's checks; lone
    # surrogates are malformed JSON to it; NUL (an escape) is not.
    trace_id = record.traceId
    memory_ids = record.memoryIds
    if (
        trace_id.isspace()
        or record.recordedAt.isspace()
        or record.sessionKey.isspace()
        or record.promptHash.isspace()
        or record.retrievalQueryHash.isspace()
        or not _safe_segment(trace_id)
    ):
        return None
    for memory_id in memory_ids:
        if memory_id.isspace():
            return None
    texts = [
        trace_id,
        record.recordedAt,
        record.sessionKey,
        record.promptHash,
        record.retrievalQueryHash,
    ]
    texts += memory_ids
    if storable_problem("".join(texts)) is not None:
        return None
    return fast_timestamp(record.recordedAt)


_RECORD_DECODER = msgspec.json.Decoder(WireShadow)


def stored_record_instant(data: bytes) -> datetime | None:
    """The recordedAt instant of a stored file's bytes that certainly hold
    a valid record of storable text (as ``decode_shadow_batch`` decides for
    each record of a body), else ``None``, which proves nothing: read it in
    full then. What the CI gate counts by the hundred thousand: decoding
    into the record type checks the types, key set and bounds in C, 2x
    cheaper than reading a dict and checking it by hand."""
    try:
        record = _RECORD_DECODER.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    return _checked_instant(record)


def wire_of(record: WireShadow) -> dict[str, Any]:
    """``record`` as its wire form (``ShadowRecord.to_wire()``'s dict)."""
    return msgspec.structs.asdict(record)


def shadow_record_problems(document: Any) -> list[SchemaProblem]:
    """Every problem of a shadow record document, sorted by path (empty: valid)."""
    raw = validate(load_validator("evals.core", SCHEMA_NAME), document)
    raw.extend(number_problems(document))
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
