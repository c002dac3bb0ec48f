"""Give, edit and read scores.

A score is given to a subject (``kind``/``ref``) under one config version,
by a person (``author``) or by an API key (an external judge). The same
giver scoring the same subject under the same config version again edits
the score: the value it replaces is kept as a ``ScoreRevision``. Who may
score which subject is decided by the caller (``reviews.selectors``); these
functions check the value and the subject, and refuse with ``SchemaInvalid``
naming the field, storing nothing.

After a score of a run's scenario is saved, the run's human metrics are
recomputed once the transaction commits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from core.errors import SchemaInvalid, SchemaProblem
from reviews.core.values import ScoreValue, value_check, value_from_text
from reviews.models import ReviewItem, Score, ScoreConfig, ScoreRevision, Subject
from reviews.services.configs import config_spec
from reviews.services.human_metrics import run_human_metrics_refresh
from reviews.services.subjects import SubjectSummary, subject_summary

MAX_COMMENT_CHARS = 10_000
MAX_REF_CHARS = 420


def _refuse(field: str, message: str) -> SchemaInvalid:
    return SchemaInvalid(message, problems=[SchemaProblem(field, "invalid", message)])


@dataclass(frozen=True, slots=True)
class Giver:
    """Who gives a score: a person, or an API key (then ``user`` is None)."""

    user: Any = None
    api_key: Any = None

    def __post_init__(self) -> None:
        if (self.user is None) == (self.api_key is None):
            raise ValueError("a score is given by a person or by a key, not both")


def subject_find(kind: Any, ref: Any) -> SubjectSummary:
    """The subject ``kind``/``ref``; ``SchemaInvalid`` naming ``kind`` (not a
    kind of subject) or ``ref`` (not of its shape, or nothing there)."""
    if kind not in Subject.values:
        raise _refuse("kind", f"the kind must be one of {', '.join(Subject.values)}.")
    if not isinstance(ref, str) or not 0 < len(ref) <= MAX_REF_CHARS:
        raise _refuse(
            "ref", f"the ref must be a text of 1 to {MAX_REF_CHARS} characters."
        )
    summary = subject_summary(kind, ref)
    if summary is None:
        raise _refuse("ref", f"there is no {Subject(kind).label} {ref!r}.")
    return summary


def comment_check(comment: Any, *, field: str = "comment") -> str:
    """The comment, stripped; ``SchemaInvalid`` when it is not a text or is
    too long."""
    if comment is None:
        return ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT_CHARS:
        raise _refuse(
            field,
            f"the comment must be a text of at most {MAX_COMMENT_CHARS} characters.",
        )
    return comment.strip()


def value_read(
    config: ScoreConfig, value: Any, *, from_text: bool = False, field: str = "value"
) -> ScoreValue:
    """``value`` checked against ``config`` (text from a form when
    ``from_text``, else a JSON value of the config's type)."""
    spec = config_spec(config)
    if from_text:
        return value_from_text(spec, "" if value is None else str(value), field=field)
    return value_check(spec, value, field=field)


def score_give(
    *,
    config: ScoreConfig,
    subject: SubjectSummary,
    kind: str,
    ref: str,
    value: ScoreValue,
    comment: str,
    giver: Giver,
    source: str,
    item: ReviewItem | None = None,
    refresh: bool = True,
) -> tuple[Score, bool]:
    """Save the giver's score of the subject under ``config``: ``(score,
    created)``; an edit keeps the replaced value as a revision. The value
    and the comment must be checked already (``value_read``,
    ``comment_check``). With ``refresh`` the run's human metrics are
    recomputed after the commit (``refresh_after_commit``); a caller saving
    several scores of one run at once asks for that once itself."""
    for _ in range(2):
        try:
            with transaction.atomic():
                score, created = _save(
                    config, subject, kind, ref, value, comment, giver, source, item
                )
        except IntegrityError:
            continue  # another request created it first: edit it now
        if refresh:
            refresh_after_commit(score.run_id)
        return score, created
    raise RuntimeError("the score could not be saved")


def _save(
    config: ScoreConfig,
    subject: SubjectSummary,
    kind: str,
    ref: str,
    value: ScoreValue,
    comment: str,
    giver: Giver,
    source: str,
    item: ReviewItem | None,
) -> tuple[Score, bool]:
    mine = Score.objects.select_for_update().filter(config=config, kind=kind, ref=ref)
    if giver.user is not None:
        mine = mine.filter(author=giver.user)
    else:
        mine = mine.filter(author__isnull=True, api_key=giver.api_key)
    score = mine.first()
    if score is None:
        score = Score.objects.create(
            config=config,
            kind=kind,
            ref=ref,
            agent_id=subject.agent_id,
            run_id=subject.run_id,
            case_id=subject.case_id,
            item=item,
            value_number=value.number,
            value_label=value.label,
            comment=comment,
            source=source,
            author=giver.user,
            api_key=giver.api_key,
        )
        return score, True
    changed = (score.value_number, score.value_label, score.comment) != (
        value.number,
        value.label,
        comment,
    )
    if changed:
        ScoreRevision.objects.create(
            score=score,
            value_number=score.value_number,
            value_label=score.value_label,
            comment=score.comment,
            changed_by=giver.user,
            changed_by_key=giver.api_key,
        )
        score.value_number = value.number
        score.value_label = value.label
        score.comment = comment
        if item is not None:
            score.item = item
        score.save()
    return score, False


def refresh_after_commit(run_id: str) -> None:
    """Recompute run ``run_id``'s human metrics once the transaction
    commits (nothing for a subject of no run); a failure is logged, never
    raised into the request that saved the score."""
    if run_id:
        transaction.on_commit(lambda: run_human_metrics_refresh(run_id), robust=True)


def score_value(score: Score) -> Any:
    """The score's value as the API shows it: a number, a label or a bool."""
    return ScoreValue(number=score.value_number, label=score.value_label).shown()


def score_history(score: Score) -> list[ScoreRevision]:
    """The values the score had before each edit, newest first."""
    return list(score.revisions.select_related("changed_by", "changed_by_key"))


def scores_of_subjects(subjects: Iterable[tuple[str, str]]) -> list[Score]:
    """Every score given to any of ``subjects`` (``(kind, ref)`` pairs)."""
    pairs = list(subjects)
    if not pairs:
        return []
    refs_by_kind: dict[str, list[str]] = {}
    for kind, ref in pairs:
        refs_by_kind.setdefault(kind, []).append(ref)
    found: list[Score] = []
    for kind, refs in refs_by_kind.items():
        found.extend(
            Score.objects.filter(kind=kind, ref__in=refs).select_related(
                "config", "author", "api_key"
            )
        )
    return found
