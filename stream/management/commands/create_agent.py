from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.text import slugify

from accounts.audit import COMMAND_LINE_ORIGIN, command_line_actor
from core.scopes import DEFAULT_SCOPES, SCOPES, UnknownScope, parse_scopes
from stream.models import Agent
from stream.services.agents import Actor, agent_create


class Command(BaseCommand):
    help = (
        "Create an agent and print its API key once (only a hash is stored); "
        "the audit log records it as done from the command line."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="agent name (a slug: letters, digits, -, _)")
        parser.add_argument(
            "--owner",
            help="username of the owner (default: the first superuser)",
        )
        parser.add_argument(
            "--scope",
            action="append",
            default=[],
            help=(
                "what the key may do (repeat or comma-separate): "
                f"{', '.join(SCOPES)}; default: stream"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["name"]
        if slugify(name) != name.lower() or not name:
            raise CommandError(f"name {name!r} must be a slug (letters, digits, -, _)")
        if Agent.objects.filter(name=name).exists():
            raise CommandError(f"agent {name!r} already exists")
        users = get_user_model().objects
        if options["owner"]:
            owner = users.filter(username=options["owner"]).first()
            if owner is None:
                raise CommandError(f"no user named {options['owner']!r}")
        else:
            owner = users.filter(is_superuser=True).order_by("pk").first()
            if owner is None:
                raise CommandError(
                    "no owner: pass --owner USERNAME or create a superuser first"
                )
        try:
            scopes = parse_scopes(options["scope"] or DEFAULT_SCOPES)
        except UnknownScope as exc:
            raise CommandError(str(exc)) from None
        created = agent_create(
            name=name,
            owner=owner,
            scopes=scopes,
            by=Actor(label=command_line_actor(), origin=COMMAND_LINE_ORIGIN),
        )
        self.stdout.write(f"agent: {created.agent.name} (owner {owner.get_username()})")
        self.stdout.write(f"scopes: {' '.join(scopes)}")
        self.stdout.write(f"api key (shown once, store it now): {created.api_key}")
