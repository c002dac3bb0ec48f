"""``manage.py review_queue_fill QUEUE_ID`` with one way to fill the queue:

- ``--sample PERCENT --run RUN_ID``: that share of the run's scenarios;
- ``--hallucinations --run RUN_ID``: every scenario of the run with a
  hallucination;
- ``--flips BASE_RUN...CANDIDATE_RUN`` (``--cases a,b`` for a selection
  instead of every flip): the candidate's scenarios of a compare selection;
- ``--subject KIND:REF`` (repeatable): these subjects.

Prints how many items were added and how many were there already. Exit
codes: 0 filled, 1 refused (every problem is printed with its field:
nothing matched, an unknown run or subject), 2 no such queue.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import SchemaInvalid
from reviews.core.rules import refusal
from reviews.models import ReviewQueue
from reviews.services.queues import (
    FillResult,
    items_add,
    queue_fill_compare,
    queue_fill_rule,
)

EXIT_REFUSED = 1
EXIT_NO_QUEUE = 2


class Command(BaseCommand):
    help = "Fill a review queue by a rule, a compare selection or a subject list."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("queue_id", type=int)
        how = parser.add_mutually_exclusive_group(required=True)
        how.add_argument("--sample", type=float, metavar="PERCENT")
        how.add_argument("--hallucinations", action="store_true")
        how.add_argument("--flips", metavar="BASE...CANDIDATE")
        how.add_argument("--subject", action="append", metavar="KIND:REF")
        parser.add_argument("--run", default="", help="the run a rule reads")
        parser.add_argument(
            "--cases", default=None, help="with --flips: these case ids (a,b,c)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        queue = ReviewQueue.objects.filter(pk=options["queue_id"]).first()
        if queue is None:
            raise CommandError(
                f"no review queue {options['queue_id']}", returncode=EXIT_NO_QUEUE
            )
        try:
            result = self._fill(queue, options)
        except SchemaInvalid as error:
            for problem in error.problems:
                self.stderr.write(f"  {problem.path}: {problem.message}")
            raise CommandError(
                f"queue {queue.pk} was not filled", returncode=EXIT_REFUSED
            ) from None
        self.stdout.write(
            f"queue {queue.pk} '{queue.name}': {result.added} added, "
            f"{result.already} already there"
        )

    def _fill(self, queue: ReviewQueue, options: dict[str, Any]) -> FillResult:
        if options["sample"] is not None:
            return queue_fill_rule(
                queue, rule="sample", run_id=options["run"], percent=options["sample"]
            )
        if options["hallucinations"]:
            return queue_fill_rule(queue, rule="hallucinations", run_id=options["run"])
        if options["flips"]:
            base, dots, candidate = options["flips"].partition("...")
            if not dots or not base or not candidate:
                raise refusal("flips", "write BASE_RUN...CANDIDATE_RUN.")
            cases = options["cases"]
            return queue_fill_compare(
                queue,
                base_run_id=base,
                candidate_run_id=candidate,
                case_ids=None if cases is None else cases.split(","),
            )
        subjects = []
        for text in options["subject"]:
            kind, colon, ref = text.partition(":")
            if not colon:
                raise refusal("subject", f"{text!r} is not KIND:REF.")
            subjects.append((kind, ref))
        return items_add(queue, subjects)
