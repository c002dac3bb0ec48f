"""`make demo`: migrate, create the demo user, load demo data, run everything.

What a person needs to log in (the URL, the user, its one-time password and
the demo agent's API key) is printed last, in a box, once the web server
accepts connections and the start-up lines of the web server, the worker
and beat have been printed: it is not lost above them.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.module_loading import import_string

DEMO_USERNAME = "demo"
# A loader returns its one-line summary, or the summary and the secrets it made
# that are shown only once ({"API key of agent demo-scout, scope stream": key}).
LoaderResult = str | tuple[str, dict[str, str]]


def _host_port(addr: str) -> tuple[str, int]:
    host, sep, port_text = addr.rpartition(":")
    if not sep or not port_text.isdigit():
        raise CommandError(f"--addr must be HOST:PORT, got {addr!r}")
    return host or "127.0.0.1", int(port_text)


def _check_port_free(addr: str) -> None:
    """Refuse, before anything starts, an address something already listens on."""
    host, port = _host_port(addr)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError:
            raise CommandError(
                f"port {port} is already in use on {host}: stop what "
                f"is using it, or choose another port: make demo PORT={port + 1}"
            ) from None


def _local(host: str) -> str:
    """Where to reach a server listening on ``host`` from this machine."""
    return "127.0.0.1" if host in ("0.0.0.0", "::") else host  # noqa: S104


def _accepts(host: str, port: int) -> bool:
    """True when something accepts a TCP connection on ``host:port``."""
    try:
        with socket.create_connection((_local(host), port), timeout=0.5):
            return True
    except OSError:
        return False


def boxed(lines: Sequence[str]) -> list[str]:
    """``lines`` in an ASCII frame, padded to the longest."""
    width = max(len(line) for line in lines)
    rule = "+" + "-" * (width + 2) + "+"
    return [rule, *(f"| {line.ljust(width)} |" for line in lines), rule]


def credential_lines(
    url: str, password: str | None, shown_once: dict[str, str]
) -> list[str]:
    """What a person needs to log in and to call the API, for the box."""
    lines = [
        f"log in at {url}accounts/login/",
        f"  username  {DEMO_USERNAME}",
    ]
    if password is None:
        lines += [
            "  password  the one printed when the user was created; a new one:",
            f"            python manage.py changepassword {DEMO_USERNAME}",
        ]
    else:
        lines.append(f"  password  {password}  (shown once: store it now)")
    for label, secret in shown_once.items():
        lines += [f"{label} (shown once: store it now):", f"  {secret}"]
    if not shown_once:
        lines += [
            "API keys are shown once, when made; a new one:",
            f"  python manage.py create_agent NAME --owner {DEMO_USERNAME}",
        ]
    return lines


class _Output:
    """Copies the children's output lines to the command's stdout and notes
    when each last wrote, so the box can wait until start-up is over."""

    def __init__(self, write: Any) -> None:
        self._write = write
        self._lock = threading.Lock()
        self.spoken: set[str] = set()
        self.last_line_at = time.monotonic()

    def line(self, text: str) -> None:
        with self._lock:
            self._write(text)

    def follow(self, name: str, stream: IO[str]) -> threading.Thread:
        def copy() -> None:
            for text in stream:
                with self._lock:
                    self.spoken.add(name)
                    self.last_line_at = time.monotonic()
                    self._write(text.rstrip("\n"))

        thread = threading.Thread(target=copy, name=f"demo-{name}", daemon=True)
        thread.start()
        return thread


class Command(BaseCommand):
    help = (
        "Migrate, create the demo staff user, load demo data and run the web "
        "server with a Celery worker and beat (Ctrl-C stops all three)."
    )
    # Start-up is over when every child has written and then been quiet this
    # long, or this long after the web server first accepted a connection.
    quiet_s = 1.0
    settle_max_s = 20.0

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--addr", default="127.0.0.1:8000")
        parser.add_argument(
            "--no-serve", action="store_true", help="set up and load data, then exit"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        addr = options["addr"]
        host, port = _host_port(addr)
        if not options["no_serve"]:
            _check_port_free(addr)
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("database migrated")
        user, password = self._demo_user()
        shown_once: dict[str, str] = {}
        for dotted in settings.DEMO_DATA_LOADERS:
            result: LoaderResult = import_string(dotted)(owner=user)
            summary, secrets_made = (result, {}) if isinstance(result, str) else result
            shown_once.update(secrets_made)
            self.stdout.write(f"demo data: {dotted}: {summary}")
        url = f"http://{_local(host)}:{port}/"
        credentials = credential_lines(url, password, shown_once)
        if options["no_serve"]:
            for line in boxed(credentials):
                self.stdout.write(line)
            return
        self._serve(addr, credentials)

    def _demo_user(self) -> tuple[Any, str | None]:
        """The demo user, and its password when it was made now."""
        users = get_user_model().objects
        user = users.filter(username=DEMO_USERNAME).first()
        if user is not None:
            self.stdout.write(f"demo user '{DEMO_USERNAME}' exists")
            return user, None
        password = secrets.token_urlsafe(12)
        user = users.create_user(
            username=DEMO_USERNAME, password=password, is_staff=True, is_superuser=True
        )
        self.stdout.write(
            f"demo staff user '{DEMO_USERNAME}' created (its password is printed "
            "at the end)"
        )
        return user, password

    def _commands(self, addr: str) -> dict[str, list[str]]:
        python = sys.executable
        worker = [python, "-m", "celery", "-A", "evalsite", "worker", "-l", "INFO"]
        if settings.CELERY_BROKER_IS_EMBEDDED:
            # No broadcast peers to find on a local folder broker.
            worker += ["--without-gossip", "--without-mingle", "--concurrency", "2"]
        return {
            "worker": worker,
            "beat": [python, "-m", "celery", "-A", "evalsite", "beat", "-l", "INFO"],
            "web": [python, "manage.py", "runserver", addr, "--noreload"],
        }

    def _serve(self, addr: str, credentials: list[str]) -> None:
        host, port = _host_port(addr)
        output = _Output(self._write_now)
        # Unbuffered: each child's lines arrive as they are written.
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        processes: dict[str, subprocess.Popen[str]] = {}
        followers = []
        for name, argv in self._commands(addr).items():
            process = subprocess.Popen(
                argv,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
                env=env,
            )
            processes[name] = process
            if process.stdout is not None:
                followers.append(output.follow(name, process.stdout))
        stopping = False

        def stop(signum: int, frame: Any) -> None:
            nonlocal stopping
            stopping = True

        previous = {
            signum: signal.signal(signum, stop)
            for signum in (signal.SIGINT, signal.SIGTERM)
        }
        failed = ""
        accepted_at: float | None = None
        announced = False
        try:
            while not stopping:
                for name, process in processes.items():
                    if process.poll() is not None:
                        failed = f"{name} exited with {process.returncode}"
                        stopping = True
                if stopping:
                    break
                if accepted_at is None and _accepts(host, port):
                    accepted_at = time.monotonic()
                if not announced and accepted_at is not None:
                    now = time.monotonic()
                    settled = (
                        output.spoken >= set(processes)
                        and now - output.last_line_at >= self.quiet_s
                    )
                    if settled or now - accepted_at >= self.settle_max_s:
                        self._announce(output, host, port, credentials)
                        announced = True
                time.sleep(0.1)
        finally:
            for process in processes.values():
                if process.poll() is None:
                    process.terminate()
            for process in processes.values():
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            for follower in followers:
                follower.join(timeout=2)
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        if failed:
            # One of the three died on its own: the demo is not running.
            raise CommandError(f"{failed}; everything was stopped")

    def _announce(
        self, output: _Output, host: str, port: int, credentials: list[str]
    ) -> None:
        url = f"http://{_local(host)}:{port}/"
        running = f"evalsite is running at {url} (web, Celery worker, beat)"
        for line in boxed([running, *credentials, "Ctrl-C stops all three"]):
            output.line(line)

    def _write_now(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()
