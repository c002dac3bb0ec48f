"""Answers a second from gunicorn under concurrent senders, beside a trivial
WSGI answer served the same way in the same run (the floor of this machine:
the HTTP parse, a fork of gunicorn's sync worker, the TCP connection).

Used by ``bench/prkeepalive.py`` (the webhook); any bench can serve a tree
with ``serve`` and load it with ``load``. Senders are processes (``procs``)
of threads (one connection per request, as gunicorn's sync workers close
each one); every thread posts for ``seconds`` and records each answer's
latency. Each load also reports the CPU an answer cost the server: its
gunicorn workers and, when ``database_pids`` names them, the database's
server processes (on a shared machine a steadier figure than the wall
clock).
"""

from __future__ import annotations

import http.client
import multiprocessing
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# (method, path, headers, body) for the i-th request of a sender.
Request = tuple[str, str, dict[str, str], bytes]
RequestMaker = Callable[[int], Request]


def trivial(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
    """The floor: read the body, answer a fixed JSON document."""
    length = int(environ.get("CONTENT_LENGTH") or 0)
    if length:
        environ["wsgi.input"].read(length)
    start_response("202 Accepted", [("Content-Type", "application/json")])
    return [b'{"status":"queued"}']


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the processes still alive among ``pids``."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (gunicorn's workers)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


@dataclass(frozen=True)
class Served:
    port: int
    pid: int  # gunicorn's master


@contextmanager
def serve(
    app: str, *, root: Path, env: dict[str, str], workers: int, log: Path
) -> Iterator[Served]:
    """gunicorn serving ``app`` (``module:callable``) from ``root`` with
    ``workers`` sync workers; yields its port and master's pid once every
    worker answers."""
    port = free_port()
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                app,
                "-b",
                f"127.0.0.1:{port}",
                "-w",
                str(workers),
                "--chdir",
                str(root),
                "--backlog",
                "2048",
            ],
            cwd=root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        # Until every worker has loaded the app and answered (any status).
        deadline = time.monotonic() + 120
        answered = 0
        while answered < 4 * workers:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                conn.close()
                answered += 1
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    sys.exit(f"gunicorn did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.2)
        yield Served(port, proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def _sender(
    port: int,
    make: RequestMaker,
    firsts: list[int],
    step: int,
    seconds: float,
    out: Any,
) -> None:
    """One process: a thread per number in ``firsts``, each sending requests
    ``first``, ``first + step``, ... until ``seconds`` have passed."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def one_thread(i: int) -> None:
        mine: list[float] = []
        seen: dict[int, int] = {}
        while time.monotonic() < stop_at:
            method, path, headers, body = make(i)
            i += step
            t0 = time.perf_counter()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request(method, path, body=body, headers=headers)
            answer = conn.getresponse()
            answer.read()
            conn.close()
            mine.append(time.perf_counter() - t0)
            seen[answer.status] = seen.get(answer.status, 0) + 1
        with lock:
            latencies.extend(mine)
            for code, n in seen.items():
                statuses[code] = statuses.get(code, 0) + n

    pool = [threading.Thread(target=one_thread, args=(first,)) for first in firsts]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    out.put((latencies, statuses))


@dataclass(frozen=True)
class Load:
    answers_per_s: float
    p50_ms: float
    p99_ms: float
    statuses: dict[int, int]
    cpu_ms: float  # the server's CPU an answer (workers and database)


def load(
    served: Served,
    make: RequestMaker,
    *,
    senders: int = 32,
    procs: int = 4,
    seconds: float = 10.0,
    base: int = 0,
    database_pids: Callable[[], list[int]] | None = None,
) -> Load:
    """``senders`` concurrent senders for ``seconds``; request numbers start
    at ``base`` and never repeat across senders. ``database_pids``: the
    database's server processes, counted in the CPU an answer."""
    port = served.port
    pids = children(served.pid) + (database_pids() if database_pids else [])
    cpu_before = cpu_seconds(pids)
    # Fork: the request maker may be a closure over the bench's data.
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    workers = [
        context.Process(
            target=_sender,
            args=(
                port,
                make,
                [base + t for t in range(p, senders, procs)],
                senders,
                seconds,
                queue,
            ),
        )
        for p in range(procs)
    ]
    for w in workers:
        w.start()
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    for _ in workers:
        got, seen = queue.get(timeout=seconds + 120)
        latencies.extend(got)
        for code, n in seen.items():
            statuses[code] = statuses.get(code, 0) + n
    cpu = cpu_seconds(pids) - cpu_before
    for w in workers:
        w.join()
    latencies.sort()
    return Load(
        answers_per_s=len(latencies) / seconds,
        p50_ms=statistics.median(latencies) * 1000,
        p99_ms=latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000,
        statuses=dict(sorted(statuses.items())),
        cpu_ms=cpu * 1000 / max(len(latencies), 1),
    )


def compare(
    make: RequestMaker,
    *,
    app: str,
    root: Path,
    before: Path | None,
    env: dict[str, str],
    logs: Path,
    what: str,
    workers: int = 3,
    senders: int = 32,
    rounds: int = 2,
    database_pids: Callable[[], list[int]] | None = None,
) -> dict[str, Load]:
    """``app`` served from ``root`` (and from ``before``, an older checkout,
    when given) beside ``trivial``, alternating for ``rounds`` rounds; the
    best round of each is printed with its ratios to the trivial answer,
    and returned by label (``trivial WSGI``, ``<what> before``, ``<what> now``).
    Each tree starts on the database the one before it left, which has grown:
    with ``before`` the order of the two flips every round, so that neither
    is always second. ``database_pids``: see ``load``."""
    trees = [("trivial WSGI", "gunicorn_load:trivial", Path(__file__).parent)]
    pair = [(f"{what} before", app, before)] if before else []
    pair += [(f"{what} now", app, root)]
    best: dict[str, Load] = {}
    for rnd in range(rounds):
        ordered = trees + (pair if rnd % 2 == 0 else pair[::-1])
        for k, (label, app_name, tree) in enumerate(ordered):
            log = logs / f"gunicorn-{rnd}-{label.replace(' ', '-')}.log"
            with serve(app_name, root=tree, env=env, workers=workers, log=log) as srv:
                got = load(
                    srv,
                    make,
                    senders=senders,
                    base=(rnd * 3 + k) * 10**8,
                    database_pids=database_pids,
                )
            print(
                f"  round {rnd + 1}: {label}: {got.answers_per_s:,.0f} answers/s, "
                f"CPU {got.cpu_ms:.2f} ms an answer",
                flush=True,
            )
            if label not in best or got.answers_per_s > best[label].answers_per_s:
                best[label] = got
    floor = best["trivial WSGI"]
    for label, got in best.items():
        print(
            f"gunicorn -w {workers}, {senders} senders: {label}: "
            f"{got.answers_per_s:,.0f} answers/s "
            f"({got.answers_per_s / floor.answers_per_s:.2f}x the trivial answer's), "
            f"p50 {got.p50_ms:.1f} ms ({got.p50_ms / floor.p50_ms:.1f}x), "
            f"p99 {got.p99_ms:.1f} ms; CPU {got.cpu_ms:.2f} ms an answer "
            f"({got.cpu_ms / max(floor.cpu_ms, 1e-6):.0f}x); answers {got.statuses}"
        )
    if before:
        gain = best[f"{what} now"].answers_per_s / best[f"{what} before"].answers_per_s
        cpu_gain = best[f"{what} before"].cpu_ms / best[f"{what} now"].cpu_ms
        print(
            f"gunicorn {what}: now / before {gain:.2f}x answers/s, "
            f"{cpu_gain:.2f}x less CPU an answer"
        )
    return best
