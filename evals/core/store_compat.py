"""Reading run summaries and baseline snapshots as the reference eval store
(openclaw-engram) reads them.

Its reader is lenient where our formats are strict; a store it gates must
gate here too. Before a run summary or a snapshot read from a store
directory is validated, it is brought to the form the reference reader
makes of it:

- fields the format does not name are dropped (they are ignored there),
  at the top level and in each snapshot entry;
- counts and rates written as decimal text (``"10"``, ``" 0.5 "``,
  ``"1e1"``) are numbers (``Number()`` there): ``totalCases``,
  ``passedCases``, ``failedCases``, ``benchmarkCount``, ``passRate`` and a
  snapshot entry's ``totalCases``;
- a metric whose value is not a number (``"0.9"``, ``true``, ``null``) is
  dropped, and ``metrics`` that is not an object is dropped whole (the
  reference keeps number-typed metrics only);
- ``benchmarkId`` (of a run and of a snapshot entry), ``status`` and the
  timestamps are trimmed (as ``String.prototype.trim`` trims); a
  ``completedAt`` that is not text or is blank is dropped (a run's instant
  is then its ``startedAt``);
- ``notes`` and ``gitRef`` that are not text are dropped.

Everything else is validated as written, so our own rules still hold (see
docs/benchmarks.md, "Compatibility with the reference store"). A document
already in our canonical form is returned unchanged, so the fast paths
that skip this step (they take only such documents) read the same thing.

Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from evals.core.format_rules import js_trim
from evals.core.runs import RUN_KEYS

# A decimal StrNumericLiteral without sign-less Infinity, hex, octal or
# binary forms and not empty: what ``Number(text)`` reads as a decimal.
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_EXACT_INT = 2**53

SNAPSHOT_KEYS = frozenset(
    {
        "schemaVersion",
        "snapshotId",
        "createdAt",
        "sourceRootDir",
        "benchmarkCount",
        "benchmarks",
        "notes",
        "gitRef",
    }
)
SNAPSHOT_ENTRY_KEYS = frozenset(
    {
        "benchmarkId",
        "runId",
        "completedAt",
        "gitRef",
        "passRate",
        "totalCases",
        "metrics",
    }
)


def decimal_text_number(value: Any) -> Any:
    """The number a decimal text stands for (an int when it is whole and
    exact), else ``value`` unchanged (so it is refused with the field's own
    message)."""
    if type(value) is not str:
        return value
    text = js_trim(value)
    if _DECIMAL.fullmatch(text) is None:
        return value
    number = float(text)
    if not math.isfinite(number):
        return value
    if number.is_integer() and abs(number) <= _EXACT_INT:
        return int(number)
    return number


def _numbers_only(metrics: Any) -> dict[str, Any] | None:
    if type(metrics) is not dict:
        return None
    return {
        name: value
        for name, value in metrics.items()
        if type(value) is int or type(value) is float
    }


def _known(document: dict[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key in keys}


def _trim(document: dict[str, Any], keys: Iterable[str]) -> None:
    for key in keys:
        value = document.get(key)
        if type(value) is str:
            document[key] = js_trim(value)


def _optional_text(document: dict[str, Any], keys: Iterable[str]) -> None:
    for key in keys:
        if key in document and type(document[key]) is not str:
            del document[key]


def _completed_at(document: dict[str, Any]) -> None:
    if "completedAt" not in document:
        return
    value = document["completedAt"]
    if type(value) is not str or not js_trim(value):
        del document["completedAt"]
    else:
        document["completedAt"] = js_trim(value)


def _counts(document: dict[str, Any], keys: Iterable[str]) -> None:
    for key in keys:
        if key in document:
            document[key] = decimal_text_number(document[key])


def _metrics(document: dict[str, Any]) -> None:
    if "metrics" in document:
        metrics = _numbers_only(document["metrics"])
        if metrics is None:
            del document["metrics"]
        else:
            document["metrics"] = metrics


_RUN_TRIMMED = ("benchmarkId", "status", "startedAt")
_RUN_COUNTS = ("totalCases", "passedCases", "failedCases")
_NUMBER_TYPES = (int, float)


def _run_is_as_read(document: dict[str, Any]) -> bool:
    """Whether reading ``document`` would change nothing (most files: the
    store's own writer and the reference's write them so); checked without
    building anything."""
    if not document.keys() <= RUN_KEYS:
        return False
    get = document.get
    for key in _RUN_TRIMMED:
        value = get(key)
        if type(value) is str and value != js_trim(value):
            return False
    for key in _RUN_COUNTS:
        if type(get(key)) is str:
            return False
    if "completedAt" in document:
        value = document["completedAt"]
        if type(value) is not str or not value or value != js_trim(value):
            return False
    for key in ("notes", "gitRef"):
        if key in document and type(document[key]) is not str:
            return False
    if "metrics" in document:
        metrics = document["metrics"]
        if type(metrics) is not dict:
            return False
        for value in metrics.values():
            if type(value) not in _NUMBER_TYPES:
                return False
    return True


def run_as_reference_reads(document: Any) -> Any:
    """A run summary document as the reference reader makes it (module
    docstring); anything but an object is returned as it is (so is a
    document reading would not change)."""
    if type(document) is not dict or _run_is_as_read(document):
        return document
    return read_run(document)


def read_run(document: dict[str, Any]) -> dict[str, Any]:
    """``run_as_reference_reads`` of an object, always built anew."""
    out = _known(document, RUN_KEYS)
    _trim(out, _RUN_TRIMMED)
    _completed_at(out)
    _optional_text(out, ("notes", "gitRef"))
    _counts(out, _RUN_COUNTS)
    _metrics(out)
    return out


def snapshot_as_reference_reads(document: Any) -> Any:
    """A baseline snapshot document as the reference reader makes it (module
    docstring); anything but an object is returned as it is."""
    if type(document) is not dict:
        return document
    out = _known(document, SNAPSHOT_KEYS)
    _trim(out, ("createdAt",))
    _optional_text(out, ("notes", "gitRef"))
    _counts(out, ("benchmarkCount",))
    benchmarks = out.get("benchmarks")
    if type(benchmarks) is list:
        entries: list[Any] = []
        for entry in benchmarks:
            if type(entry) is dict:
                entry = _known(entry, SNAPSHOT_ENTRY_KEYS)
                _trim(entry, ("benchmarkId",))
                _completed_at(entry)
                _optional_text(entry, ("gitRef",))
                _counts(entry, ("passRate", "totalCases"))
                _metrics(entry)
            entries.append(entry)
        out["benchmarks"] = entries
    return out
