from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from stream.core.sanitizer import sanitize
from stream.core.wire import sanitize_result_to_wire


class Command(BaseCommand):
    help = (
        "Sanitize model output read from stdin and print the result as JSON "
        "(text, goal, goalFailReason, goalFailDetail, goalTagCount, goalKey, "
        'intent, intentParse, flags). With --jsonl: one {"text": ...} per line '
        "in, one result per line out."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--jsonl", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["jsonl"]:
            result = sanitize_result_to_wire(sanitize(sys.stdin.read()))
            self.stdout.write(json.dumps(result, ensure_ascii=False, indent=2))
            return
        errors = 0
        for number, line in enumerate(sys.stdin, start=1):
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
                text = doc["text"] if isinstance(doc, dict) else None
                if not isinstance(text, str):
                    raise ValueError('each line needs {"text": "<string>"}')
            except (ValueError, KeyError) as exc:
                errors += 1
                self.stderr.write(f"<stdin>:{number}: {exc}")
                continue
            result = sanitize_result_to_wire(sanitize(text))
            self.stdout.write(json.dumps(result, ensure_ascii=False))
        if errors:
            raise CommandError(f"{errors} invalid line(s)")
