from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import SchemaInvalid
from stream.core.frames import facts_from_wire, render_frame
from stream.core.types import PromptProfile
from stream.core.wire import rendered_frame_to_wire


class Command(BaseCommand):
    help = (
        'Read a situation frame (JSON: {"facts": {"bot", "world"}, '
        '"deltas"?, "memory"?}) on stdin and print the rendered text and counts.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--profile", choices=[p.value for p in PromptProfile], default="balanced"
        )
        parser.add_argument("--json", action="store_true", help="print JSON instead")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            doc = json.loads(sys.stdin.read())
        except ValueError as exc:
            raise CommandError(f"<stdin>: not JSON: {exc}") from None
        try:
            facts = facts_from_wire(doc)
        except SchemaInvalid as exc:
            for problem in exc.problems:
                self.stderr.write(f"<stdin>: {problem.path}: {problem.message}")
            raise CommandError("invalid frame") from None
        frame = render_frame(facts, profile=PromptProfile(options["profile"]))
        if options["json"]:
            self.stdout.write(json.dumps(rendered_frame_to_wire(frame), indent=2))
            return
        self.stdout.write(frame.text)
        self.stdout.write("")
        self.stdout.write(
            f"profile={frame.profile.value} facts={frame.fact_count} "
            f"memories={frame.memory_count} deltas={frame.delta_count} "
            f"digest={frame.digest}"
        )
