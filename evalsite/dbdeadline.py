"""A database server that stops answering costs a request seconds, not minutes.

A stopped or wedged PostgreSQL (``SIGSTOP``, a frozen VM, a dead network
path that still accepts packets) keeps its TCP connections open: the
kernel acknowledges what the client sends and nothing ever answers, so a
query waits forever and ``statement_timeout`` (enforced by the server)
never fires. Three bounds, all from settings (``evalsite/database.py``):

- a new connection gives up after ``DB_CONNECT_TIMEOUT_S`` (libpq's
  ``connect_timeout``);
- the check of a kept connection at the start of a request (Django's
  health check, ``SELECT 1``) gets ``DB_CONNECT_TIMEOUT_S`` too;
- a statement gets ``DB_STATEMENT_TIMEOUT_S`` from the server and, should
  the server not answer at all, two seconds more from this process.

Past a bound the watchdog shuts the connection's socket down: the driver
sees the connection closed and raises ``OperationalError``, which the API
and the pages answer with 503 (``evalsite.middleware``). One daemon thread
per process watches every armed call; arming is a dictionary write.
"""

from __future__ import annotations

import itertools
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

logger = logging.getLogger(__name__)

CHECK_INTERVAL_S = 0.1
# A server that enforces statement_timeout answers by then.
STATEMENT_GRACE_S = 2.0


class _Watchdog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed: dict[int, tuple[float, int, str]] = {}
        self._thread: threading.Thread | None = None
        self._tokens = itertools.count()

    def arm(self, fd: int, seconds: float, what: str) -> int:
        with self._lock:
            token = next(self._tokens)
            self._armed[token] = (time.monotonic() + seconds, fd, what)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._watch, name="db-deadline", daemon=True
                )
                self._thread.start()
        return token

    def disarm(self, token: int) -> None:
        with self._lock:
            self._armed.pop(token, None)

    def _watch(self) -> None:
        while True:
            time.sleep(CHECK_INTERVAL_S)
            now = time.monotonic()
            with self._lock:
                due = [
                    t for t, (deadline, _, _) in self._armed.items() if deadline <= now
                ]
                for token in due:
                    _, fd, what = self._armed.pop(token)
                    _cut(fd)
                    logger.error("[Ops] database_not_answering what=%s", what)


def _cut(fd: int) -> None:
    """Shut the connection's socket down (the driver owns the descriptor
    and closes it; a duplicate is used for the shutdown)."""
    with suppress(OSError):
        duplicate = socket.socket(fileno=os.dup(fd))
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        finally:
            duplicate.close()


_watchdog = _Watchdog()


def _socket_of(database_connection: Any) -> int | None:
    """The socket of a Django connection's open PostgreSQL connection."""
    raw = getattr(database_connection, "connection", None)
    pgconn = getattr(raw, "pgconn", None)
    if pgconn is None:
        return None
    try:
        fd = int(pgconn.socket)
    except Exception:  # closed or broken: nothing to watch  # noqa: BLE001
        return None
    return fd if fd >= 0 else None


@contextmanager
def deadline(database_connection: Any, seconds: float, what: str) -> Iterator[None]:
    """Shut the connection down if the block still waits after ``seconds``
    (a no-op without an open PostgreSQL connection)."""
    fd = _socket_of(database_connection)
    if fd is None or seconds <= 0:
        yield
        return
    token = _watchdog.arm(fd, seconds, what)
    try:
        yield
    finally:
        _watchdog.disarm(token)


def statement_deadline(seconds: float) -> Callable[..., Any]:
    """A ``connection.execute_wrapper`` giving each statement ``seconds``
    (``DB_STATEMENT_TIMEOUT_S`` plus the grace; 0: no deadline)."""

    def wrapper(
        execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        with deadline(context["connection"], seconds, "statement"):
            return execute(sql, params, many, context)

    return wrapper
