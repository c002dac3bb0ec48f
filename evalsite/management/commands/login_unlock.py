"""Lift a sign-in lock (too many failed passwords) of an account or address."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalsite.login import unlock


class Command(BaseCommand):
    help = (
        "Lift the sign-in lock that failed passwords put on an account "
        "(USERNAME) and/or a client address (--address)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", nargs="?", default="")
        parser.add_argument("--address", default="", help="a client IP address")

    def handle(self, *args: Any, **options: Any) -> None:
        username, address = options["username"], options["address"]
        if not username and not address:
            raise CommandError("name a USERNAME, an --address, or both")
        cleared = unlock(username=username, address=address)
        what = " and ".join(
            part
            for part in (
                f"account {username!r}" if username else "",
                f"address {address}" if address else "",
            )
            if part
        )
        if cleared:
            self.stdout.write(f"Lifted the sign-in lock of {what}.")
        else:
            self.stdout.write(
                f"No failed sign-ins counted for {what}; nothing to lift."
            )
