"""`make demo`: migrate, create the demo user, load demo data, run everything."""

from __future__ import annotations

import secrets
import signal
import socket
import subprocess
import sys
import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.module_loading import import_string

DEMO_USERNAME = "demo"


def _check_port_free(addr: str) -> None:
    """Refuse, before anything starts, an address something already listens on."""
    host, sep, port_text = addr.rpartition(":")
    if not sep or not port_text.isdigit():
        raise CommandError(f"--addr must be HOST:PORT, got {addr!r}")
    port = int(port_text)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host or "127.0.0.1", port))
        except OSError:
            raise CommandError(
                f"port {port} is already in use on {host or '127.0.0.1'}: stop what "
                f"is using it, or choose another port: make demo PORT={port + 1}"
            ) from None


class Command(BaseCommand):
    help = (
        "Migrate, create the demo staff user, load demo data and run the web "
        "server with a Celery worker and beat (Ctrl-C stops all three)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--addr", default="127.0.0.1:8000")
        parser.add_argument(
            "--no-serve", action="store_true", help="set up and load data, then exit"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["no_serve"]:
            _check_port_free(options["addr"])
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("database migrated")
        user = self._demo_user()
        for dotted in settings.DEMO_DATA_LOADERS:
            loader = import_string(dotted)
            summary = loader(owner=user)
            self.stdout.write(f"demo data: {dotted}: {summary}")
        if options["no_serve"]:
            return
        self._serve(options["addr"])

    def _demo_user(self) -> Any:
        users = get_user_model().objects
        user = users.filter(username=DEMO_USERNAME).first()
        if user is not None:
            self.stdout.write(
                f"demo user '{DEMO_USERNAME}' exists (its password was printed when "
                f"it was created; reset it with: python manage.py changepassword "
                f"{DEMO_USERNAME})"
            )
            return user
        password = secrets.token_urlsafe(12)
        user = users.create_user(
            username=DEMO_USERNAME, password=password, is_staff=True, is_superuser=True
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"demo staff user created: username '{DEMO_USERNAME}' password "
                f"'{password}' (shown once)"
            )
        )
        return user

    def _serve(self, addr: str) -> None:
        python = sys.executable
        embedded = settings.CELERY_BROKER_IS_EMBEDDED
        worker = [python, "-m", "celery", "-A", "evalsite", "worker", "-l", "INFO"]
        if embedded:
            # No broadcast peers to find on a local folder broker.
            worker += ["--without-gossip", "--without-mingle", "--concurrency", "2"]
        commands = {
            "worker": worker,
            "beat": [python, "-m", "celery", "-A", "evalsite", "beat", "-l", "INFO"],
            "web": [python, "manage.py", "runserver", addr, "--noreload"],
        }
        processes = {name: subprocess.Popen(argv) for name, argv in commands.items()}
        self.stdout.write(
            self.style.SUCCESS(
                f"evalsite is running on http://{addr}/ (web, Celery worker, beat); "
                "Ctrl-C stops all three"
            )
        )
        stopping = False

        def stop(signum: int, frame: Any) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        failed = ""
        try:
            while not stopping:
                for name, process in processes.items():
                    if process.poll() is not None:
                        failed = f"{name} exited with {process.returncode}"
                        stopping = True
                time.sleep(0.5)
        finally:
            for process in processes.values():
                if process.poll() is None:
                    process.terminate()
            for process in processes.values():
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        if failed:
            # One of the three died on its own: the demo is not running.
            raise CommandError(f"{failed}; everything was stopped")
