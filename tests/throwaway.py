"""Throwaway services that a test starts, breaks and kills by pid.

``redis_server()`` starts a private ``redis-server`` (no persistence) on a
free port from 6390 up; ``hung_listener()`` is a TCP port that accepts
connections and never answers, as a stopped database server does. Without
the ``redis-server`` program a test skips with the reason (fails under
``REQUIRE_SERVICES=1``).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import pytest

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES", "") in ("1", "true")


def need_program(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        reason = f"needs the {name} program on PATH"
        if REQUIRE_SERVICES:
            pytest.fail(f"REQUIRE_SERVICES=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    return path


def _free_port(start: int) -> int:
    for port in range(start, start + 200):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port from {start}")


@dataclass
class RedisServer:
    port: int
    process: subprocess.Popen[bytes]

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def kill(self) -> None:
        """SIGKILL by pid, as a crashed server: every connection drops."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


@contextmanager
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    program = need_program("redis-server")
    tmp_path.mkdir(parents=True, exist_ok=True)
    port = _free_port(6390)
    process = subprocess.Popen(
        [program, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        + ["--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = RedisServer(port=port, process=process)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"redis-server did not start on port {port}")
            time.sleep(0.05)
        yield server
    finally:
        server.kill()


@contextmanager
def hung_listener() -> Iterator[int]:
    """A port whose connections are accepted and never answered; yields it."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        listener.close()


class FreezableProxy:
    """A TCP relay to ``127.0.0.1:<target>`` that can freeze: from then on
    it relays nothing and answers no new connection, while every socket
    stays open, as a server stopped with SIGSTOP behaves (the kernel still
    accepts and acknowledges, nobody answers)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.frozen = threading.Event()
        self._stop = threading.Event()
        self._sockets: list[socket.socket] = []
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._listener.settimeout(0.1)
        self.port: int = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def freeze(self) -> None:
        self.frozen.set()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                continue
            self._sockets.append(client)
            if self.frozen.is_set():
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self._sockets.append(upstream)
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(
                    target=self._pump, args=(src, dst), daemon=True
                ).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        while not self._stop.is_set():
            try:
                data = src.recv(65536)
            except OSError:
                return
            if not data:
                return
            while self.frozen.is_set() and not self._stop.is_set():
                time.sleep(0.05)
            try:
                dst.sendall(data)
            except OSError:
                return

    def close(self) -> None:
        self._stop.set()
        for sock in [self._listener, *self._sockets]:
            # shutdown first: a thread blocked in recv keeps a closed socket
            # open, and the server would never see the connection end.
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with suppress(OSError):
                sock.close()


@contextmanager
def freezable_proxy(target: int) -> Iterator[FreezableProxy]:
    proxy = FreezableProxy(target)
    try:
        yield proxy
    finally:
        proxy.close()
