"""Review queues: create one, set its reviewers, fill it with items.

A queue is filled by hand (a list of subjects), from a compare selection
(the candidate run's flips, or the cases picked on the compare page), by a
rule over a run (``reviews.core.rules``: a sample, every hallucination),
or from a list of subjects a saved search gave. Every fill checks all its
subjects first and stores nothing when one is refused or nothing matches;
a subject already in the queue is left as it is. A round robin queue hands
the new items to its reviewers as they are added.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from core.errors import NotFound, SchemaInvalid, SchemaProblem
from evals.facade import run_scores
from evals.selectors.runs import run_cases, run_get
from reviews.core.assign import reviewers_wanted, subject_key
from reviews.core.rules import (
    HALLUCINATIONS,
    flip_cases,
    hallucination_cases,
    refusal,
    rule_check,
    sample_cases,
)
from reviews.models import QueueMember, ReviewItem, ReviewQueue, ScoreConfig, Subject
from reviews.services.assignments import assign_round_robin, release_pending
from reviews.services.subjects import SubjectSummary, subject_summary

MAX_NAME_CHARS = 200
# One fill adds at most this many items (a page of work, not a whole table).
MAX_FILL = 5000
# A run's cases read for a rule or a compare selection (more is refused).
MAX_RUN_CASES = 100_000


@dataclass(frozen=True, slots=True)
class FillResult:
    """What a fill did: items added, and subjects already in the queue."""

    added: int
    already: int


def queue_create(
    *,
    name: str,
    configs: Sequence[ScoreConfig],
    description: str = "",
    assignment: str = ReviewQueue.Assignment.ROUND_ROBIN,
    overlap_percent: Any = 0,
    members: Iterable[Any] = (),
    user: Any = None,
) -> ReviewQueue:
    """A new queue scoring ``configs`` (the versions given); ``SchemaInvalid``
    naming every bad field (``name``, ``configs``, ``assignment``,
    ``overlap_percent``)."""
    problems: list[SchemaProblem] = []
    name = (name or "").strip() if isinstance(name, str) else ""
    if not 0 < len(name) <= MAX_NAME_CHARS:
        problems.append(
            SchemaProblem(
                "name",
                "invalid",
                f"a name of 1 to {MAX_NAME_CHARS} characters is needed.",
            )
        )
    chosen = list(dict.fromkeys(configs))
    if not chosen:
        problems.append(
            SchemaProblem("configs", "invalid", "pick at least one score config.")
        )
    elif len({config.name for config in chosen}) != len(chosen):
        problems.append(
            SchemaProblem(
                "configs", "invalid", "pick one version of each score config."
            )
        )
    if assignment not in ReviewQueue.Assignment.values:
        problems.append(
            SchemaProblem(
                "assignment",
                "invalid",
                "the assignment must be one of "
                f"{', '.join(ReviewQueue.Assignment.values)}.",
            )
        )
    overlap = _percent(overlap_percent)
    if overlap is None:
        problems.append(
            SchemaProblem(
                "overlap_percent",
                "invalid",
                "the overlap must be a whole number from 0 to 100.",
            )
        )
    if problems:
        raise SchemaInvalid("the review queue is not valid", problems=problems)
    with transaction.atomic():
        queue = ReviewQueue.objects.create(
            name=name,
            description=(description or "").strip(),
            assignment=assignment,
            overlap_percent=overlap or 0,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        queue.score_configs.set(chosen)
        for person in dict.fromkeys(members):
            QueueMember.objects.create(queue=queue, user=person)
    return queue


def _percent(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and 0 <= value <= 100:
        return value
    return None


def queue_members_set(queue: ReviewQueue, users: Iterable[Any]) -> None:
    """Make ``users`` the queue's reviewers. A reviewer taken off the queue
    keeps what they finished; their unfinished items go back to the others."""
    wanted = list(dict.fromkeys(users))
    with transaction.atomic():
        current = {m.user_id: m for m in QueueMember.objects.filter(queue=queue)}
        gone = [uid for uid in current if uid not in {u.pk for u in wanted}]
        QueueMember.objects.filter(queue=queue, user_id__in=gone).delete()
        release_pending(queue, gone)
        for person in wanted:
            if person.pk not in current:
                QueueMember.objects.create(queue=queue, user=person)


def users_by_name(names: Iterable[str]) -> list[Any]:
    """The users named, in the order given; ``SchemaInvalid`` naming
    ``members`` with every name that is nobody."""
    wanted = [name.strip() for name in names if name and name.strip()]
    found = {
        user.get_username(): user
        for user in get_user_model().objects.filter(username__in=wanted, is_active=True)
    }
    missing = [name for name in wanted if name not in found]
    if missing:
        message = f"no such reviewer: {', '.join(missing)}."
        raise SchemaInvalid(
            message, problems=[SchemaProblem("members", "invalid", message)]
        )
    return [found[name] for name in dict.fromkeys(wanted)]


def items_add(
    queue: ReviewQueue,
    subjects: Iterable[tuple[str, str]],
    *,
    origin: str = ReviewItem.Origin.HAND,
    user: Any = None,
    field: str = "subjects",
) -> FillResult:
    """Add the subjects (``(kind, ref)`` pairs) to the queue. Every subject
    must exist, else ``SchemaInvalid`` naming ``field`` lists the ones that
    do not and nothing is added; none at all is refused the same way."""
    pairs = list(dict.fromkeys((str(kind), str(ref).strip()) for kind, ref in subjects))
    if not pairs:
        raise refusal(field, "there is nothing to add.")
    if len(pairs) > MAX_FILL:
        raise refusal(field, f"at most {MAX_FILL} items can be added at once.")
    summaries: dict[tuple[str, str], SubjectSummary] = {}
    unknown: list[str] = []
    for kind, ref in pairs:
        summary = subject_summary(kind, ref) if kind in Subject.values else None
        if summary is None:
            unknown.append(f"{kind} {ref}")
        else:
            summaries[(kind, ref)] = summary
    if unknown:
        shown = ", ".join(unknown[:10]) + (" …" if len(unknown) > 10 else "")
        raise refusal(field, f"{len(unknown)} subject(s) do not exist: {shown}.")
    return _store(queue, summaries, origin=origin, user=user)


def _store(
    queue: ReviewQueue,
    summaries: dict[tuple[str, str], SubjectSummary],
    *,
    origin: str,
    user: Any,
) -> FillResult:
    person = user if getattr(user, "is_authenticated", False) else None
    with transaction.atomic():
        ReviewQueue.objects.select_for_update().filter(pk=queue.pk).first()
        present = set(ReviewItem.objects.filter(queue=queue).values_list("kind", "ref"))
        new = [
            ReviewItem(
                queue=queue,
                kind=kind,
                ref=ref,
                agent_id=summary.agent_id,
                run_id=summary.run_id,
                title=summary.title[:300],
                reviewers_wanted=reviewers_wanted(
                    subject_key(kind, ref), queue.overlap_percent
                ),
                origin=origin,
                added_by=person,
            )
            for (kind, ref), summary in summaries.items()
            if (kind, ref) not in present
        ]
        ReviewItem.objects.bulk_create(new)
        if queue.assignment == ReviewQueue.Assignment.ROUND_ROBIN and new:
            created = ReviewItem.objects.filter(
                queue=queue, ref__in=[item.ref for item in new]
            ).order_by("pk")
            fresh = [i for i in created if (i.kind, i.ref) not in present]
            assign_round_robin(queue, fresh)
    return FillResult(added=len(new), already=len(summaries) - len(new))


def _run_or_refuse(run_id: str, field: str) -> Any:
    try:
        return run_get(run_id=run_id)
    except NotFound:
        raise refusal(field, f"there is no run {run_id!r}.") from None


def queue_fill_rule(
    queue: ReviewQueue, *, rule: Any, run_id: Any, percent: Any = None, user: Any = None
) -> FillResult:
    """Fill by a rule over a run (``sample`` with ``percent``, or
    ``hallucinations``); a rule that matches nothing is refused naming
    ``rule``, an unknown run naming ``run_id``."""
    checked = rule_check(rule, run_id, percent)
    run = _run_or_refuse(checked.run_id, "run_id")
    cases = run_cases(run)[:MAX_RUN_CASES]
    if checked.rule == HALLUCINATIONS:
        chosen = hallucination_cases(
            (case.case_id, (case.details or {}).get("hallucination"))
            for case in cases
            if isinstance(case.details, dict)
        )
        nothing = f"no scenario of run {run.run_id} has a hallucination."
    else:
        chosen = sample_cases(
            [case.case_id for case in cases], checked.percent, seed=run.run_id
        )
        nothing = f"run {run.run_id} has no scenarios to sample."
    if not chosen:
        raise refusal("rule", nothing)
    subjects = [(Subject.SCENARIO_RESULT, f"{run.run_id}/{case}") for case in chosen]
    return items_add(
        queue, subjects, origin=ReviewItem.Origin.RULE, user=user, field="rule"
    )


def queue_fill_compare(
    queue: ReviewQueue,
    *,
    base_run_id: str,
    candidate_run_id: str,
    case_ids: Sequence[str] | None = None,
    user: Any = None,
) -> FillResult:
    """Fill with the candidate run's scenario results of a compare selection:
    ``case_ids`` as picked on the compare page, or (None) every flip between
    the two runs. Refused naming ``cases`` when the selection is empty or
    names a case the candidate does not have."""
    base = run_scores(base_run_id, max_cases=MAX_RUN_CASES)
    if base is None:
        raise refusal("base_run_id", f"there is no run {base_run_id!r}.")
    candidate = run_scores(candidate_run_id, max_cases=MAX_RUN_CASES)
    if candidate is None:
        raise refusal("candidate_run_id", f"there is no run {candidate_run_id!r}.")
    outcomes = {case.case_id: case.passed for case in candidate.cases}
    if case_ids is None:
        chosen = flip_cases({c.case_id: c.passed for c in base.cases}, outcomes)
        if not chosen:
            raise refusal("cases", "the two runs have no flips.")
    else:
        chosen = sorted({case.strip() for case in case_ids if case and case.strip()})
        if not chosen:
            raise refusal("cases", "the selection has no cases.")
        missing = [case for case in chosen if case not in outcomes]
        if missing:
            raise refusal(
                "cases",
                f"run {candidate_run_id} has no case {', '.join(missing[:10])}.",
            )
    subjects = [
        (Subject.SCENARIO_RESULT, f"{candidate.run.run_id}/{case}") for case in chosen
    ]
    return items_add(
        queue, subjects, origin=ReviewItem.Origin.COMPARE, user=user, field="cases"
    )


def queue_fill_subjects(
    queue: ReviewQueue, subjects: Iterable[tuple[str, str]], *, user: Any = None
) -> FillResult:
    """Fill with the subjects a saved search found (``(kind, ref)`` pairs);
    refused naming ``search`` when there are none or one does not exist."""
    return items_add(
        queue, subjects, origin=ReviewItem.Origin.SEARCH, user=user, field="search"
    )


def queue_configs(queue: ReviewQueue) -> list[ScoreConfig]:
    """The config versions the queue's items are scored on, by name."""
    return list(queue.score_configs.order_by("name"))


def queue_delete(queue: ReviewQueue) -> None:
    """Delete the queue and its items; the scores given stay."""
    queue.delete()
