"""``manage.py review_queue_fill QUEUE_ID`` with one way to fill the queue:

- ``--sample PERCENT --run RUN_ID``: that share of the run's scenarios;
- ``--hallucinations --run RUN_ID``: every scenario of the run with a
  hallucination;
- ``--flips BASE_RUN...CANDIDATE_RUN`` (``--cases a,b`` for a selection
  instead of every flip): the candidate's scenarios of a compare selection;
- ``--subject KIND:REF`` (repeatable): these subjects;
- ``--thoughts-of AGENT --as USER`` (``--since``, ``--until`` as ISO 8601
  times, ``--eligible yes|no``): the agent's thoughts in that range, if USER
  may see the agent;
- ``--saved-search ID --as USER``: what USER's saved search finds now;
- ``--episodes BATCH`` (``--share PERCENT``): a gridworld batch's episodes,
  all of them or that share;
- ``--decisions OWNER/NAME#NUMBER`` (``--since``, ``--until``): a pull
  request's keepalive decisions; ``--decisions all`` with ``--since`` and/or
  ``--until``: every decision made in that range.

Prints how many items were added and how many were there already. Exit
codes: 0 filled, 1 refused (every problem is printed with its field:
nothing matched, an unknown run or subject), 2 no such queue.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from core.errors import SchemaInvalid
from reviews.core.rules import refusal
from reviews.models import ReviewQueue
from reviews.services.fill_sources import (
    queue_fill_decisions,
    queue_fill_episodes,
    queue_fill_search,
    queue_fill_thoughts,
)
from reviews.services.queues import (
    FillResult,
    items_add,
    queue_fill_compare,
    queue_fill_rule,
)

EXIT_REFUSED = 1
EXIT_NO_QUEUE = 2


class Command(BaseCommand):
    help = (
        "Fill a review queue by a rule, a compare selection, a subject list, "
        "an agent's thoughts, a saved search, a batch's episodes or a pull's "
        "decisions."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("queue_id", type=int)
        how = parser.add_mutually_exclusive_group(required=True)
        how.add_argument("--sample", type=float, metavar="PERCENT")
        how.add_argument("--hallucinations", action="store_true")
        how.add_argument("--flips", metavar="BASE...CANDIDATE")
        how.add_argument("--subject", action="append", metavar="KIND:REF")
        how.add_argument("--thoughts-of", metavar="AGENT")
        how.add_argument("--saved-search", metavar="ID")
        how.add_argument("--episodes", metavar="BATCH")
        how.add_argument("--decisions", metavar="OWNER/NAME#NUMBER")
        parser.add_argument(
            "--as", dest="as_user", default="", help="who fills (thoughts, search)"
        )
        parser.add_argument("--since", default="", help="ISO 8601, included")
        parser.add_argument("--until", default="", help="ISO 8601, excluded")
        parser.add_argument("--eligible", default="", help="yes, no or any")
        parser.add_argument(
            "--share", default=None, help="with --episodes: this percent of them"
        )
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
        if options["thoughts_of"] or options["saved_search"]:
            return self._fill_as(queue, options)
        if options["episodes"]:
            return queue_fill_episodes(
                queue, batch_id=options["episodes"], percent=options["share"]
            )
        if options["decisions"]:
            return queue_fill_decisions(
                queue,
                pull="" if options["decisions"] == "all" else options["decisions"],
                since=_moment(options["since"], "since"),
                until=_moment(options["until"], "until"),
            )
        subjects = []
        for text in options["subject"]:
            kind, colon, ref = text.partition(":")
            if not colon:
                raise refusal("subject", f"{text!r} is not KIND:REF.")
            subjects.append((kind, ref))
        return items_add(queue, subjects)

    def _fill_as(self, queue: ReviewQueue, options: dict[str, Any]) -> FillResult:
        name = options["as_user"].strip()
        user = get_user_model().objects.filter(username=name, is_active=True).first()
        if user is None:
            raise refusal("as", "name the user who fills the queue (--as USER).")
        if options["saved_search"]:
            return queue_fill_search(
                queue, saved_search_id=options["saved_search"], user=user
            )
        return queue_fill_thoughts(
            queue,
            agent=options["thoughts_of"],
            since=_moment(options["since"], "since"),
            until=_moment(options["until"], "until"),
            eligible=options["eligible"],
            user=user,
        )


def _moment(text: str, field: str) -> Any:
    """The time ``text`` names (ISO 8601; without an offset, in the site's
    time zone), None for nothing; a refusal naming ``field`` otherwise."""
    if not text.strip():
        return None
    try:
        moment = parse_datetime(text.strip())
    except ValueError:
        moment = None
    if moment is None:
        raise refusal(field, f"{text[:40]!r} is not a time like 2026-02-03T12:00.")
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment
