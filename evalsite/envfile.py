"""The local ``.env`` file: read by settings, written once by ``make demo``.

``make demo`` runs with DEBUG on and the demo's feature flags; a ``manage.py``
command typed later in a new shell must see the same configuration, so the
demo writes it to ``.env`` once (a random secret key, DEBUG on, the flags)
and settings read that file. Values already in the environment always win,
and the file is optional: a deployment sets real variables and has none, so
production without ``DJANGO_SECRET_KEY`` still refuses to start.

Format: ``KEY=VALUE`` lines; blank lines and ``#`` comments are skipped, an
unquoted value ends at `` #`` (one that starts with ``#`` is empty), single
or double quotes are removed.

    python -m evalsite.envfile --demo .env --port 8001

writes the demo file if absent. Its ``SITE_URL`` (the base of the links
commands print) follows the demo's port: a later ``make demo PORT=N``
rewrites that one line when it is a local ``http://127.0.0.1:<port>``
address, and leaves an address someone set by hand alone.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import sys
from pathlib import Path

_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

DEMO_FLAGS = (
    "EVAL_HARNESS_ENABLED",
    "EVAL_SHADOW_MODE_ENABLED",
    "BENCHMARK_BASELINE_SNAPSHOTS_ENABLED",
    "BENCHMARK_DELTA_REPORTER_ENABLED",
    "MEMORY_RED_TEAM_BENCH_ENABLED",
)


class EnvFileError(ValueError):
    """A line of the file is not ``KEY=VALUE``; the message names file and line."""


def parse_env_file(text: str, *, name: str = ".env") -> dict[str, str]:
    """The ``KEY=VALUE`` pairs of ``text``; raises ``EnvFileError`` on a bad line."""
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not _KEY.match(key):
            raise EnvFileError(f"{name}: line {number}: expected KEY=VALUE")
        value = value.strip()
        if value[:1] in ("'", '"') and value.endswith(value[0]) and len(value) > 1:
            value = value[1:-1]
        else:
            # `KEY=   # note` is empty, as in docker compose's env files.
            value = re.split(r"(?:^|\s+)#", value, maxsplit=1)[0].strip()
        values[key] = value
    return values


def load_env_file(path: Path) -> list[str]:
    """Put the file's values into ``os.environ`` where a variable is not set.

    Returns the names it set. A missing file sets nothing.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    loaded = []
    for key, value in parse_env_file(text, name=str(path)).items():
        if key not in os.environ:
            os.environ[key] = value
            loaded.append(key)
    return loaded


def demo_site_url(port: int) -> str:
    return f"http://127.0.0.1:{port}"


# A SITE_URL line the demo wrote (or one like it): rewritten for another port.
_DEMO_SITE_URL_LINE = re.compile(
    r"^SITE_URL=http://(127\.0\.0\.1|localhost):\d+/?$", re.MULTILINE
)


def demo_env_text(port: int = 8000) -> str:
    lines = [
        "# Written once by `make demo` for this checkout: the configuration the demo",
        "# runs with, so manage.py commands in a new shell see the same settings.",
        "# Local use only. A deployment sets real variables (DJANGO_DEBUG=false, its",
        "# own DJANGO_SECRET_KEY) and has no .env; .env.example lists every variable.",
        "DJANGO_DEBUG=true",
        f"DJANGO_SECRET_KEY={secrets.token_urlsafe(50)}",
        *(f"{flag}=true" for flag in DEMO_FLAGS),
        "# Base of the links commands print: the port `make demo PORT=N` serves on.",
        f"SITE_URL={demo_site_url(port)}",
    ]
    return "\n".join(lines) + "\n"


def write_demo_env(path: Path, port: int = 8000) -> bool:
    """Write the demo ``.env`` unless the file exists; True when written."""
    if path.exists():
        return False
    path.write_text(demo_env_text(port), encoding="utf-8")
    path.chmod(0o600)
    return True


def point_demo_env_at_port(path: Path, port: int) -> bool:
    """Make an existing demo file's ``SITE_URL`` name ``port``; True when the
    file changed. A file without the variable gets the line; a local
    address on another port is rewritten; any other address is kept."""
    text = path.read_text(encoding="utf-8")
    line = f"SITE_URL={demo_site_url(port)}"
    if "SITE_URL" not in parse_env_file(text, name=str(path)):
        updated = text + ("" if text.endswith("\n") or not text else "\n")
        updated += line + "\n"
    else:
        updated = _DEMO_SITE_URL_LINE.sub(line, text)
    if updated == text:
        return False
    path.write_text(updated, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evalsite.envfile")
    parser.add_argument("--demo", metavar="PATH", required=True, type=Path)
    parser.add_argument(
        "--port", type=int, default=8000, help="the port the demo serves on"
    )
    args = parser.parse_args(argv)
    try:
        if write_demo_env(args.demo, args.port):
            print(
                f"wrote {args.demo} (the demo's settings, for manage.py in new shells)"
            )
        elif point_demo_env_at_port(args.demo, args.port):
            print(f"{args.demo}: SITE_URL={demo_site_url(args.port)} (the demo's port)")
    except EnvFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
