"""Scenario suites of the harness: where they are, how they are read.

A suite is a JSONL file under ``EVALS_SUITES_DIR``, read from disk on every
run (EV-C1 hot swap) and parsed by ``evals.core.suites``; a run records the
sha256 of the bytes it read. Its ``Benchmark`` (kind ``suite``) exists once a
run of it has been created.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from core.caches import remember
from core.canonical import sha256_hex
from core.errors import SchemaInvalid, SchemaProblem
from core.text import path_problem
from evals.core.suite_types import LoadedSuite, SuiteInvalid
from evals.core.suites import parse_suite, read_suite_bytes

logger = logging.getLogger(__name__)

SUITE_SUFFIX = ".jsonl"
SCRIPT_SUFFIX = ".script.jsonl"
# Parses (and scripted adapters) kept by content: see suite_read.
CACHE_SIZE = 8


def default_script_path(suite_path: Path) -> Path:
    """``<suite>.script.jsonl`` beside the suite: the scripted model's default."""
    return suite_path.with_name(f"{suite_path.stem}{SCRIPT_SUFFIX}")


def suites_dir() -> Path:
    return Path(settings.EVALS_SUITES_DIR)


def suite_resolve(name: str, *, field: str = "suite") -> Path:
    """The file a client names: a shipped suite (``smoke`` or ``smoke.jsonl``)
    or a relative path under ``EVALS_SUITES_DIR``.

    Refuses (``SchemaInvalid`` on ``field``) anything that resolves outside
    that directory, so a web client can never make the server read an
    arbitrary file, and a name that does not exist.
    """
    root = suites_dir().resolve()
    raw = name.strip()
    problem = path_problem(raw)
    if problem is not None:
        raise SchemaInvalid(
            f"{field} {problem}",
            problems=[SchemaProblem(field, "invalid_name", f"{field} {problem}")],
        )
    candidates = [raw] if raw.endswith(SUITE_SUFFIX) else [raw + SUITE_SUFFIX, raw]
    for candidate in candidates:
        path = (root / candidate).resolve()
        if not path.is_relative_to(root):
            raise SchemaInvalid(
                f"{field} must name a file under the suites directory",
                problems=[
                    SchemaProblem(
                        field,
                        "outside_suites_dir",
                        f"{name!r} is outside the suites directory",
                    )
                ],
            )
        try:
            if path.is_file():
                return path
        except OSError:
            continue
    raise SchemaInvalid(
        f"no such {field}: {name!r}",
        problems=[
            SchemaProblem(
                field,
                "not_found",
                f"no {field} named {name!r} in the suites directory",
            )
        ],
    )


def suite_locate(value: str) -> Path:
    """What a command-line user means by ``--suite``: an existing file path
    as given, else a shipped suite's name (``smoke``, ``idle-v1.jsonl``).

    Raises ``SchemaInvalid`` on ``suite`` naming the shipped suites when it
    is neither.
    """
    path = Path(value).expanduser()
    if path.is_file():
        return path
    if "/" not in value and "\\" not in value:
        try:
            return suite_resolve(value)
        except SchemaInvalid:
            pass
    names = ", ".join(f.suite_id for f in suite_files()) or "none"
    raise SchemaInvalid(
        f"no suite {value!r}: not a file, and not a shipped suite ({names})",
        problems=[
            SchemaProblem(
                "suite", "not_found", f"{value!r} is neither a file nor a suite name"
            )
        ],
    )


@dataclass(frozen=True, slots=True)
class SuiteFile:
    """A suite file as it is on disk now, for the suites list and the API."""

    suite_id: str
    name: str
    path: Path
    line_count: int
    suite_sha256: str
    is_valid: bool
    invalid_lines: int
    has_script: bool


def suite_files() -> list[SuiteFile]:
    """Every ``*.jsonl`` suite in ``EVALS_SUITES_DIR`` (scripts left out), as
    read now; an invalid file is listed with its invalid-line count."""
    root = suites_dir()
    if not root.is_dir():
        return []
    files: list[SuiteFile] = []
    for path in sorted(root.glob(f"*{SUITE_SUFFIX}")):
        if path.name.endswith(SCRIPT_SUFFIX) or not path.is_file():
            continue
        try:
            suite = suite_read(path)
        except SuiteInvalid as exc:
            files.append(
                SuiteFile(
                    suite_id=path.stem,
                    name=path.name,
                    path=path,
                    line_count=exc.line_count,
                    suite_sha256=exc.suite_sha256,
                    is_valid=False,
                    invalid_lines=len(exc.invalid_lines),
                    has_script=default_script_path(path).is_file(),
                )
            )
            continue
        files.append(
            SuiteFile(
                suite_id=suite.suite_id,
                name=path.name,
                path=path,
                line_count=suite.line_count,
                suite_sha256=suite.suite_sha256,
                is_valid=True,
                invalid_lines=0,
                has_script=default_script_path(path).is_file(),
            )
        )
    return files


# Parsed suites by (path, sha256 of the bytes). The file is read on every
# call (EV-C1); only the parse of bytes already seen is reused, so an edited
# file is always parsed and validated afresh. Without it every chunk of a
# large run would re-validate the whole suite.
_SUITE_CACHE: dict[tuple[str, str], LoadedSuite] = {}


def suite_read(path: Path) -> LoadedSuite:
    """``load_suite``'s contract (``NotFound``, ``SuiteInvalid``), reading the
    bytes every time and reusing the parse of identical bytes."""
    data = read_suite_bytes(path)
    key = (str(path), sha256_hex(data))
    suite = _SUITE_CACHE.get(key)
    if suite is None:
        suite = remember(
            _SUITE_CACHE, key, parse_suite(data, path=path), size=CACHE_SIZE
        )
    return suite


def suite_read_logged(path: Path) -> LoadedSuite:
    """``suite_read`` with EV-C1/EV-C2's log lines (every invalid line)."""
    try:
        suite = suite_read(path)
    except SuiteInvalid as exc:
        for invalid in exc.invalid_lines:
            logger.error(
                "[Eval] suite_invalid path=%s line=%s errors=%s",
                path,
                invalid.line,
                invalid.errors_json(),
                extra={"suite_path": str(path), "line": invalid.line},
            )
        raise
    logger.info(
        "[Eval] suite_loaded path=%s line_count=%s suite_sha256=%s",
        path,
        suite.line_count,
        suite.suite_sha256,
        extra={"suite_path": str(path), "suite_sha256": suite.suite_sha256},
    )
    return suite
