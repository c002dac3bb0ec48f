"""What an API key may do: its scopes, and the scope each operation needs.

A key (an agent's) carries a set of scopes; people logged in with a session
are not scoped (staff-only actions are checked on the user). The rule is a
pure function of the HTTP method and the path, so a new endpoint under a
known area is covered the day it is added, and an endpoint under an unknown
``/api/`` area refuses every key until it is given a scope here (fail closed).

Scopes:

- ``stream``: the cognitive stream and the planning task API;
- ``benchmarks:read``: every read of benchmarks, runs, shadows, baselines,
  the gate, eval runs and gridworld batches (and, as before this scope
  list was split, everything ``prkeepalive:read`` allows);
- ``prkeepalive:read``: PR keepalive's records (decisions, rounds) and its
  dry run (``POST /api/prkeepalive/explain``), nothing else;
- ``benchmarks:write``: recording runs, shadows, new packs, eval runs and
  gridworld batches (implies read);
- ``benchmarks:replace``: replacing a different pack under an existing id
  (``force``; implies write);
- ``baselines:write``: storing baseline snapshots, which the CI gate compares
  against (implies read).
- ``traces``: sending spans over OTLP (``POST /v1/traces``) and reading the
  key's own agent's spans and traces (``/api/traces/``, ``/api/spans``).
- ``reviews``: reading and posting human scores (``/api/reviews/``), so an
  external judge can score what people review; a key sees and scores only
  its own agent's subjects.
- ``search``: full-text search (``/api/search``) over the key's own agent's
  thoughts, outputs and decisions.

New keys get ``stream`` only; a stream key can do nothing else.
Deterministic, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

STREAM: Final = "stream"
BENCHMARKS_READ: Final = "benchmarks:read"
PRKEEPALIVE_READ: Final = "prkeepalive:read"
BENCHMARKS_WRITE: Final = "benchmarks:write"
BENCHMARKS_REPLACE: Final = "benchmarks:replace"
BASELINES_WRITE: Final = "baselines:write"
TRACES: Final = "traces"
REVIEWS: Final = "reviews"
SEARCH: Final = "search"
# Any valid key: who am I, and the public API description.
ANY_KEY: Final = ""

SCOPES: Final = (
    STREAM,
    BENCHMARKS_READ,
    PRKEEPALIVE_READ,
    BENCHMARKS_WRITE,
    BENCHMARKS_REPLACE,
    BASELINES_WRITE,
    TRACES,
    REVIEWS,
    SEARCH,
)
DEFAULT_SCOPES: Final = (STREAM,)
IMPLIED: Final = {
    # Keys made when benchmarks:read also covered PR keepalive keep it.
    BENCHMARKS_READ: (PRKEEPALIVE_READ,),
    BENCHMARKS_WRITE: (BENCHMARKS_READ,),
    BENCHMARKS_REPLACE: (BENCHMARKS_WRITE, BENCHMARKS_READ),
    BASELINES_WRITE: (BENCHMARKS_READ,),
}
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})

# Public: the OpenAPI schema and its Swagger UI describe operations, never
# data, so they answer without a key or login (a key of any scope is accepted).
PUBLIC_PATHS: Final = ("/api/schema/", "/api/docs/")
_ANY_KEY_PATHS: Final = ("/api/whoami", *PUBLIC_PATHS)
_STREAM_PREFIXES: Final = ("/api/cognitive-stream/", "/api/tasks")
_BENCHMARK_PREFIXES: Final = (
    "/api/benchmarks/",
    "/api/evals/",
    "/api/gridworld/",
)
_PRKEEPALIVE_PREFIX: Final = "/api/prkeepalive/"
# Writes that compute and store nothing count as reads.
_READ_ONLY_POSTS: Final = ("/api/gridworld/verify", "/api/prkeepalive/explain")
_BASELINE_PATHS: Final = ("/api/benchmarks/baselines",)
_TRACES_PREFIXES: Final = ("/v1/traces", "/api/traces", "/api/spans")
_REVIEWS_PREFIX: Final = "/api/reviews/"
_SEARCH_PREFIX: Final = "/api/search"


class UnknownScope(ValueError):
    """A scope name that is not one of ``SCOPES``."""


def parse_scopes(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` (comma-separated items allowed) as a sorted, de-duplicated
    tuple of known scopes; ``UnknownScope`` naming the first unknown one."""
    found: set[str] = set()
    for item in names:
        for name in item.split(","):
            name = name.strip()
            if not name:
                continue
            if name not in SCOPES:
                raise UnknownScope(
                    f"unknown scope {name!r}; one of {', '.join(SCOPES)}"
                )
            found.add(name)
    return tuple(sorted(found))


def effective_scopes(scopes: Iterable[str]) -> frozenset[str]:
    """``scopes`` with everything they imply, directly or through another."""
    out: set[str] = set()
    todo = list(scopes)
    while todo:
        scope = todo.pop()
        if scope not in out:
            out.add(scope)
            todo.extend(IMPLIED.get(scope, ()))
    return frozenset(out)


def required_scope(method: str, path: str) -> str | None:
    """The scope a key needs for ``method path``: ``ANY_KEY`` (``""``) when any
    valid key will do, None when no key may call it."""
    method = method.upper()
    if path.startswith(_ANY_KEY_PATHS):
        return ANY_KEY
    if path.startswith(_STREAM_PREFIXES):
        return STREAM
    if path.startswith(_TRACES_PREFIXES):
        return TRACES
    if path.startswith(_REVIEWS_PREFIX):
        return REVIEWS
    if path.startswith(_SEARCH_PREFIX):
        return SEARCH
    if path.startswith(_PRKEEPALIVE_PREFIX):
        # The webhook authenticates by its signature; no key writes here.
        if method in SAFE_METHODS or path.rstrip("/") in _READ_ONLY_POSTS:
            return PRKEEPALIVE_READ
        return None
    if not path.startswith(_BENCHMARK_PREFIXES):
        return None
    if method in SAFE_METHODS or path.rstrip("/") in _READ_ONLY_POSTS:
        return BENCHMARKS_READ
    if path.rstrip("/") in _BASELINE_PATHS:
        return BASELINES_WRITE
    return BENCHMARKS_WRITE


def key_may(scopes: Iterable[str], required: str | None) -> bool:
    """Whether a key with ``scopes`` may do what needs ``required``."""
    if required is None:
        return False
    return required == ANY_KEY or required in effective_scopes(scopes)
