"""Arguments shared by the keepalive commands run inside GitHub Actions."""

from __future__ import annotations

import argparse
from typing import Any

from prkeepalive.core.types import Policy


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        help="agent alias (repeatable; default codex)",
    )
    parser.add_argument(
        "--allowed-author",
        action="append",
        default=[],
        help="who may activate (repeatable; default anyone)",
    )
    parser.add_argument(
        "--automation-login",
        action="append",
        default=[],
        help="accounts that never activate (repeatable)",
    )
    parser.add_argument(
        "--gate-workflow", default="Gate", help="name of the Gate workflow"
    )
    parser.add_argument(
        "--orchestrator-workflow",
        default="Agents orchestrator",
        help="name of the orchestrator workflow",
    )


def policy_from(options: dict[str, Any]) -> Policy:
    return Policy(
        agent_aliases=tuple(options["agent"]) or Policy().agent_aliases,
        allowed_authors=tuple(options["allowed_author"]),
        automation_logins=tuple(options["automation_login"]),
        gate_workflow=options["gate_workflow"],
    )
