"""`make demo`'s output: the login and the API key come last, in a box, once
the web server accepts connections and start-up has been printed."""

from __future__ import annotations

import re
import socket
import sys
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from accounts.models import AuditEntry
from evalsite.management.commands import demo
from evalsite.management.commands.demo import boxed

pytestmark = pytest.mark.django_db


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_demo(*args: str, **options: Any) -> tuple[list[str], str]:
    """The demo's output lines, and the error it stopped with ("" if none)."""
    out = StringIO()
    try:
        call_command("demo", *args, stdout=out, **options)
    except CommandError as exc:
        return out.getvalue().splitlines(), str(exc)
    return out.getvalue().splitlines(), ""


def test_box_frames_lines_padded_to_the_longest() -> None:
    assert boxed(["evalsite", "is running"]) == [
        "+------------+",
        "| evalsite   |",
        "| is running |",
        "+------------+",
    ]


def test_first_demo_prints_password_and_api_key_last_in_a_box(settings: Any) -> None:
    settings.DEMO_DATA_LOADERS = ["stream.demo.load_demo"]

    lines, error = run_demo("--no-serve", addr="127.0.0.1:8765")

    assert error == ""
    password = re.fullmatch(
        r"\|   password  (\S+)  \(shown once: store it now\) +\|", lines[6]
    )
    key = re.fullmatch(r"\|   (es_\S+) +\|", lines[8])
    assert password and key
    assert lines == [
        "database migrated",
        "demo staff user 'demo' created (its password is printed at the end)",
        "demo data: stream.demo.load_demo: agent demo-scout with 7 thoughts (its API "
        "key is printed at the end)",
        *boxed(
            [
                "log in at http://127.0.0.1:8765/accounts/login/",
                "  username  demo",
                f"  password  {password[1]}  (shown once: store it now)",
                "API key of agent demo-scout, scope stream (shown once: store it now):",
                f"  {key[1]}",
            ]
        ),
    ]
    # What the box shows is what works.
    assert get_user_model().objects.get(username="demo").check_password(password[1])
    whoami = Client().get("/api/whoami", HTTP_AUTHORIZATION=f"Bearer {key[1]}")
    assert whoami.status_code == 200
    # The audit log starts with the demo's agent.
    entry = AuditEntry.objects.get()
    assert (entry.actor_label, entry.action) == ("make demo", "agent.create")


def test_second_demo_says_how_to_get_a_password_and_a_key(settings: Any) -> None:
    settings.DEMO_DATA_LOADERS = ["stream.demo.load_demo"]
    run_demo("--no-serve")

    lines, _ = run_demo("--no-serve")

    assert lines == [
        "database migrated",
        "demo user 'demo' exists",
        "demo data: stream.demo.load_demo: agent demo-scout exists",
        *boxed(
            [
                "log in at http://127.0.0.1:8000/accounts/login/",
                "  username  demo",
                "  password  the one printed when the user was created; a new one:",
                "            python manage.py changepassword demo",
                "API keys are shown once, when made; a new one:",
                "  python manage.py create_agent NAME --owner demo",
            ]
        ),
    ]


def fake_children(port: int, *, web_listens: bool = True) -> dict[str, list[str]]:
    """Stand-ins for the web server, worker and beat: each writes start-up
    lines; the web server listens late (or never); beat exits after 4 s,
    which ends the demo."""
    web = "import socket, sys, time\nprint('web: starting')\ntime.sleep(0.4)\n" + (
        "s = socket.socket()\n"
        f"s.bind(('127.0.0.1', {port}))\n"
        "s.listen()\n"
        "print('web: listening')\n"
        "time.sleep(60)\n"
        if web_listens
        else "sys.exit(1)\n"
    )
    worker = "import time\ntime.sleep(0.8)\nprint('worker: ready')\ntime.sleep(60)\n"
    beat = "import sys, time\nprint('beat: starting')\ntime.sleep(4)\nsys.exit(3)\n"
    return {
        name: [sys.executable, "-c", code]
        for name, code in (("worker", worker), ("beat", beat), ("web", web))
    }


def test_running_line_and_box_come_once_the_server_accepts_after_start_up(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.DEMO_DATA_LOADERS = []
    port = free_port()
    monkeypatch.setattr(demo.Command, "quiet_s", 0.5)
    monkeypatch.setattr(
        demo.Command, "_commands", lambda self, addr: fake_children(port)
    )

    lines, error = run_demo(addr=f"127.0.0.1:{port}")

    assert error == "beat exited with 3; everything was stopped"
    start = (
        lines.index(
            f"| evalsite is running at http://127.0.0.1:{port}/ (web, Celery worker, beat) |"
        )
        - 1
    )
    password = re.fullmatch(
        r"\|   password  (\S+)  \(shown once: store it now\) +\|", lines[start + 4]
    )
    assert password
    assert lines[start:] == boxed(
        [
            f"evalsite is running at http://127.0.0.1:{port}/ (web, Celery worker, beat)",
            f"log in at http://127.0.0.1:{port}/accounts/login/",
            "  username  demo",
            f"  password  {password[1]}  (shown once: store it now)",
            "API keys are shown once, when made; a new one:",
            "  python manage.py create_agent NAME --owner demo",
            "Ctrl-C stops all three",
        ]
    )
    # Every start-up line of the three came before the box.
    assert set(lines[:start]) >= {
        "web: starting",
        "web: listening",
        "worker: ready",
        "beat: starting",
    }


def test_no_running_line_when_the_server_never_accepts(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.DEMO_DATA_LOADERS = []
    port = free_port()
    children = fake_children(port, web_listens=False)
    monkeypatch.setattr(demo.Command, "_commands", lambda self, addr: children)

    lines, error = run_demo(addr=f"127.0.0.1:{port}")

    assert error == "web exited with 1; everything was stopped"
    assert "web: starting" in lines
    assert not any("evalsite is running" in line for line in lines)
    assert not any(line.startswith("+--") for line in lines)
