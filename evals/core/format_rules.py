"""Rules every eval-store format shares: safe path segments, instants, numbers
and strings, JSON documents parsed with limits, and JSON Schema problems
translated into the contract's messages (every problem, sorted by path)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

import orjson

from core.errors import SchemaInvalid, SchemaProblem
from core.text import NAME_MAX_BYTES, json_path, name_problem, unstorable_values

SAFE_SEGMENT_MAX_CHARS = 200

NUMBER_LIMIT = 2**53 - 1
"""The largest magnitude of any number in an eval-store document
(JavaScript's ``Number.MAX_SAFE_INTEGER``). Every integer up to it is exact
as a float, and every float up to it is written without an exponent, so a
number keeps its value and its type through JSON text, a database column
(PostgreSQL's ``jsonb`` writes ``1e300`` back as 301 digits) and the store
files. The API, the importer and the store reader all refuse what lies
beyond (``number_problems``)."""

CASE_COUNT_LIMIT = 2**31 - 1
"""The largest case count of a run (``totalCases``, ``passedCases``,
``failedCases``, a snapshot entry's ``totalCases``): what the database's
integer column for it holds."""

MAX_JSON_DEPTH = 512
"""How deeply a JSON document may nest arrays and objects (``[[1]]`` is 2
deep). Python's parser and writer give up somewhere past it, at a depth that
differs between Python versions and call stacks; with this limit a deeper
document gets the same ``nests too deep`` refusal everywhere."""


_JSON_WHITESPACE = " \t\n\r"


# ``scan_once`` is set by JSONDecoder.__init__; typeshed does not declare it.
_SCAN_VALUE: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


_TIMESTAMP_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d{1,9}))?(?:Z|[+-]\d{2}:\d{2})\Z",
    re.ASCII,
)


_UNSAFE_SEGMENT_RE = re.compile(r"[\x00-\x1f\x7f/\\]")


def is_safe_path_segment(value: str) -> bool:
    """Whether ``value`` can be used as one file or directory name and as an
    identifier: also no invisible formatting character (zero-width, bidi
    override), control character or noncharacter, so that no id renders
    like another one."""
    return (
        0 < len(value) <= SAFE_SEGMENT_MAX_CHARS
        and value not in (".", "..")
        and not value.isspace()
        and _UNSAFE_SEGMENT_RE.search(value) is None
        # ASCII past the pattern above has nothing name_problem refuses (its
        # only ASCII refusals are control characters) and one byte a char.
        and (
            value.isascii()
            or (name_problem(value) is None and len(value.encode()) <= NAME_MAX_BYTES)
        )
    )


def parse_timestamp(value: str) -> datetime | None:
    """The instant of an RFC 3339 timestamp with a zone, else ``None``.

    Fractions beyond microseconds are accepted and truncated, because clients
    in other languages write nanoseconds; the original string is what is kept.
    """
    match = _TIMESTAMP_RE.match(value)
    if match is None:
        return None
    fraction = match.group(1)
    if fraction is not None and len(fraction) > 6:
        value = value[: match.start(1) + 6] + value[match.end(1) :]
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


# RFC 3339 with a zone and at most microseconds: the timestamps that
# ``parse_timestamp`` reads with ``fromisoformat`` as they are (a subset of
# its pattern, matched without its capture group).
_PLAIN_TIMESTAMP = re.compile(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)", re.ASCII
)


def fast_timestamp(value: str) -> datetime | None:
    """``parse_timestamp(value)``, sooner for the common shapes."""
    if _PLAIN_TIMESTAMP.fullmatch(value) is None:
        return parse_timestamp(value)
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def timestamp_key(value: str) -> datetime:
    """Sort key of an already validated timestamp."""
    parsed = parse_timestamp(value)
    if parsed is None:
        raise ValueError(f"not a valid ISO timestamp: {value!r}")
    return parsed


def is_finite_number(value: object) -> bool:
    """A JSON number (not a bool) that is neither NaN nor infinite."""
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


# The characters JavaScript's ``String.prototype.trim`` removes (WhiteSpace
# and LineTerminator), which differ from Python's ``str.strip``: how the
# reference eval store trims its text fields.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(value: str) -> str:
    """``value`` without the whitespace JavaScript's ``trim`` removes."""
    return value.strip(JS_WHITESPACE)


def is_non_empty_string(value: object) -> bool:
    """A string with at least one non-whitespace character."""
    return type(value) is str and value.strip() != ""


MessageTable = Mapping[str, str | Mapping[str, str]]


_INDEX_RE = re.compile(r"\[\d+\]")


_LAST_INDEX_RE = re.compile(r"\[\d+\]$")


_REQUIRED_RE = re.compile(r'^(".+") is a required property$')


# One problem per path: the most basic failure explains the rest ("" fails
# minLength and enum; only "must be a non-empty string" is useful).
_KEYWORD_RANK = {
    "required": 0,
    "type": 1,
    "const": 2,
    "minLength": 3,
    "pattern": 4,
    "not_finite": 5,
    "minimum": 6,
    "maximum": 7,
    "out_of_range": 7,
    "multipleOf": 8,
    "enum": 9,
}


def path_pattern(path: str, map_prefixes: Iterable[str] = ()) -> str:
    """``$.cases[3].id`` -> ``$.cases[].id``; keys under a map prefix -> ``*``."""
    pattern = _INDEX_RE.sub("[]", path)
    for prefix in map_prefixes:
        if pattern.startswith(prefix + "."):
            return prefix + ".*"
    return pattern


def translate_problems(
    raw: Iterable[SchemaProblem],
    *,
    messages: MessageTable,
    document_name: str,
    map_prefixes: Iterable[str] = (),
) -> list[SchemaProblem]:
    """Turn JSON Schema problems into the contract's messages, one per path.

    ``required`` problems move to the missing field's own path, so a missing
    ``cases[0].id`` and an empty one read the same. Unknown properties keep
    the shared ``unknown property: <key>`` message.
    """
    prefixes = tuple(map_prefixes)
    chosen: dict[str, tuple[int, SchemaProblem]] = {}
    for problem in raw:
        path, keyword = problem.path, problem.code
        if keyword == "unknown_property":
            chosen[path] = (-1, problem)
            continue
        if keyword == "required":
            match = _REQUIRED_RE.match(problem.message)
            if match:
                path = f"{path}.{json.loads(match.group(1))}"
        field = document_name if path == "$" else path[2:]
        parent = _LAST_INDEX_RE.sub("", field)
        entry = messages.get(path_pattern(path, prefixes))
        if keyword == "out_of_range" and not (
            isinstance(entry, Mapping) and keyword in entry
        ):
            template = OUT_OF_RANGE
        elif isinstance(entry, Mapping):
            template = entry.get(keyword, entry.get("*", "{field} is invalid"))
        elif entry is None:
            template = "{field} is invalid"
        else:
            template = entry
        code = "required" if keyword == "required" else "invalid"
        rank = _KEYWORD_RANK.get(keyword, 10)
        message = template.format(field=field, parent=parent)
        candidate = SchemaProblem(path, code, message)
        current = chosen.get(path)
        if current is None or rank < current[0]:
            chosen[path] = (rank, candidate)
    return [problem for _, problem in chosen.values()]


def number_problems(document: object) -> list[SchemaProblem]:
    """Raw problems for every number inside ``document`` that no format
    takes: ``not_finite`` for NaN/Infinity (JSON Schema's ``number`` accepts
    them), ``out_of_range`` for a magnitude past ``NUMBER_LIMIT``.
    Iterative, so a deep document cannot exhaust the stack."""
    found: list[SchemaProblem] = []
    stack: list[tuple[object, str]] = [(document, "$")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            stack.extend((item, f"{path}.{key}") for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(value))
        elif type(value) is float and not math.isfinite(value):
            found.append(SchemaProblem(path, "not_finite", "not a finite number"))
        elif (type(value) is int or type(value) is float) and not (
            -NUMBER_LIMIT <= value <= NUMBER_LIMIT
        ):
            message = OUT_OF_RANGE.format(field=path)
            found.append(SchemaProblem(path, "out_of_range", message))
    return found


OUT_OF_RANGE = f"{{field}} must be a number between -{NUMBER_LIMIT} and {NUMBER_LIMIT}"
"""The message of a number past ``NUMBER_LIMIT`` (``{field}``: its name)."""

NON_NEGATIVE_RANGE = f"{{field}} must be a non-negative number at most {NUMBER_LIMIT}"
"""The message of a never-negative number past ``NUMBER_LIMIT``."""

NUMBER_MESSAGES = {
    "*": "{field} must be a finite number",
    "minimum": OUT_OF_RANGE,
    "maximum": OUT_OF_RANGE,
}
"""The messages of a number that may be negative (a metric, a score)."""


def json_depth(value: object) -> int:
    """How deeply ``value`` nests arrays and objects (a scalar: 0; tuples
    count as arrays, as ``json.dumps`` writes them), counted without
    recursion. Exact type checks: 3x cheaper than ``isinstance`` here, and
    parsed JSON holds only plain dicts and lists."""
    if type(value) not in _CONTAINERS:
        return 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > deepest:
            deepest = depth
        for child in item.values() if type(item) is dict else item:
            if type(child) in _CONTAINERS:
                stack.append((child, depth + 1))
    return deepest


_CONTAINERS = frozenset((dict, list, tuple))


def too_deep_problem(what: str) -> SchemaProblem:
    """The one problem of a document nested past ``MAX_JSON_DEPTH``."""
    return SchemaProblem(
        "$",
        "invalid_json",
        f"{what} is not valid JSON: nests too deep (more than {MAX_JSON_DEPTH} levels)",
    )


def parse_json_document(data: bytes | str, *, what: str) -> Any:
    """Parse one UTF-8 JSON document.

    Raises ``SchemaInvalid`` with a single ``invalid_json`` problem at ``$``
    when it is no JSON or nests arrays and objects deeper than
    ``MAX_JSON_DEPTH`` (the same answer on every Python version), and one
    ``unstorable`` problem per value no database column can store (NUL, lone
    surrogates, integers past 64 bits) by its path. ``NaN``/``Infinity``
    parse; every validator refuses them as numbers. A UTF-8 BOM, whitespace
    around the value and duplicate keys (the last one wins) are accepted as
    ``json.loads`` accepts them.
    """
    value, clean = _read_canonical(data) if isinstance(data, bytes) else _NO_VALUE
    if value is _NOT_CANONICAL:
        value = _parse_json(data, what=what)
        too_deep = json_depth(value) > MAX_JSON_DEPTH
    else:
        # Canonical text indents the members of a container at depth k by
        # 2k spaces, so without a line indented 2 * MAX_JSON_DEPTH no
        # container lies deeper than the limit.
        too_deep = (
            isinstance(data, bytes)
            and data.find(_DEEPEST_INDENT) >= 0
            and json_depth(value) > MAX_JSON_DEPTH
        )
    if too_deep:
        problem = too_deep_problem(what)
        raise SchemaInvalid(f"{what} nests too deep", problems=[problem])
    if clean:
        return value
    unstorable = unstorable_values(value)
    if unstorable:
        raise SchemaInvalid(
            f"{what} holds values that cannot be stored",
            problems=[
                SchemaProblem(json_path(parts), "unstorable", reason)
                for parts, reason in unstorable
            ],
        )
    return value


_NOT_CANONICAL = object()
_NO_VALUE = (_NOT_CANONICAL, False)
_CANONICAL = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
_CANONICAL_53_BITS = _CANONICAL | orjson.OPT_STRICT_INTEGER
NUL_ESCAPE = b"\\u0000"  # how JSON text writes a NUL
_DEEPEST_INDENT = b"\n" + b" " * (2 * MAX_JSON_DEPTH)


def _read_canonical(data: bytes) -> tuple[Any, bool]:
    """``(value, clean)`` if ``data`` is exactly the canonical bytes of its
    value (``store_json_bytes``, how the store writes every file), else
    ``(_NOT_CANONICAL, False)``. ``clean``: the value certainly holds nothing
    ``unstorable_values`` reports (``False`` proves nothing).

    orjson reads in C but differs from ``json.loads`` at the edges: it refuses
    a BOM, lone surrogates, NaN and Infinity and nesting past 1,024 levels,
    reads integers past 64 bits as floats and keeps the last of duplicate
    keys. Writing the value back canonically and getting ``data`` again proves
    that none of that happened: each key appeared once, each number kept its
    text (orjson writes the shortest text that reads back as the same float),
    so ``json.loads`` reads the same value. Anything else is read by
    ``json.loads``, which decides.

    Canonical bytes hold no lone surrogate (orjson refuses them) and write a
    NUL as ``\\u0000``; integers past 64 bits are past 53 bits, which the
    first writing refuses. Without either, no value is unstorable.
    """
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _NO_VALUE
    clean = data.find(NUL_ESCAPE) < 0  # not `in`: bytes.__contains__ is slower
    try:
        written = orjson.dumps(value, option=_CANONICAL_53_BITS)
    except orjson.JSONEncodeError:
        # An integer past 53 bits, or nesting orjson does not write.
        clean = False
        try:
            written = orjson.dumps(value, option=_CANONICAL)
        except orjson.JSONEncodeError:
            return _NO_VALUE
    return (value, clean) if written == data else _NO_VALUE


def _parse_json(data: bytes | str, *, what: str) -> Any:
    # The store reads hundreds of thousands of small files: scanning the value
    # directly skips json.loads' encoding sniffing. Anything unusual (leading
    # whitespace, a BOM, trailing data, an error) goes through json.loads,
    # which decides.
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value, end = _SCAN_VALUE(text, 0)
        if not text[end:].strip(_JSON_WHITESPACE):
            return value
    except (StopIteration, ValueError, RecursionError):
        pass
    try:
        return json.loads(data)
    except RecursionError:
        problem = too_deep_problem(what)
        raise SchemaInvalid(f"{what} nests too deep", problems=[problem]) from None
    except (ValueError, UnicodeDecodeError) as error:
        problem = SchemaProblem(
            "$", "invalid_json", f"{what} is not valid JSON: {error}"
        )
        raise SchemaInvalid(f"{what} is not valid JSON", problems=[problem]) from None


def raise_if_problems(problems: list[SchemaProblem], what: str) -> None:
    """Raise ``SchemaInvalid`` carrying every problem, if there is any."""
    if problems:
        raise SchemaInvalid(f"invalid {what}", problems=problems)


def sorted_map(values: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A copy with keys sorted, so maps always serialise in the same order."""
    return None if values is None else {key: values[key] for key in sorted(values)}


def put_optional(out: dict[str, Any], key: str, value: Any) -> None:
    """Set ``out[key]`` unless ``value`` is ``None`` (absent stays absent)."""
    if value is not None:
        out[key] = value
