"""What a review item or a score is about, read from the app that holds it.

A subject is named by a kind and a string ref (``reviews.models.Subject``):
``<run_id>/<case_id>`` for a scenario result, and the primary key of a
thought, a gridworld episode or a keepalive decision. ``subject_summary``
answers the few fields a queue copies beside an item (the agent and the run,
for filtering and authorization, and a short title), or None when the ref
names nothing that exists. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from core.errors import NotFound
from evals.selectors.runs import case_pair, run_get
from gridworld.selectors import episode_with_batch
from prkeepalive.selectors import decision_with_pull, pull_url_of
from reviews.models import Subject
from stream.selectors_thoughts import thought_with_agent

# A title is shown in lists; the item's own page shows the whole subject.
TITLE_CHARS = 120


@dataclass(frozen=True, slots=True)
class SubjectSummary:
    """The fields an item or a score copies from its subject: the agent
    (None where the subject belongs to none), the run (``""`` where none),
    the scenario's case id (scenario results only), a one-line title and
    the subject's own page (``""`` where it has none)."""

    agent_id: int | None
    run_id: str
    case_id: str
    title: str
    url: str = ""


def subject_summary(kind: str, ref: str) -> SubjectSummary | None:
    """The summary of the subject ``kind``/``ref``; None for an unknown
    kind, a ref of the wrong shape or a subject that does not exist."""
    read = _READERS.get(kind)
    if read is None or not isinstance(ref, str) or not ref.strip():
        return None
    return read(ref.strip())


def split_scenario_ref(ref: str) -> tuple[str, str] | None:
    """``(run_id, case_id)`` of a scenario result's ref; None when it is not
    of the shape ``<run_id>/<case_id>`` (the run id holds no slash, the case
    id may)."""
    run_id, slash, case_id = ref.partition("/")
    if not slash or not run_id or not case_id:
        return None
    return run_id, case_id


def scenario_run_of(ref: str) -> tuple[Any, str] | None:
    """``(run, case_id)`` of a scenario result's ref: the stored run it
    names and the case id; None when the ref is not of that shape or names
    no run (the case itself may still be missing)."""
    parts = split_scenario_ref(ref)
    if parts is None:
        return None
    run_id, case_id = parts
    try:
        return run_get(run_id=run_id), case_id
    except NotFound:
        return None


def primary_key(ref: str) -> int | None:
    """The positive integer a pk ref names; None for anything else."""
    if not ref.isascii() or not ref.isdigit():
        return None
    value = int(ref)
    # Beyond a signed 64-bit column every lookup fails on Postgres.
    return value if 0 < value < 2**63 else None


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    if len(line) <= TITLE_CHARS:
        return line
    return line[: TITLE_CHARS - 1].rstrip() + "…"


def _scenario(ref: str) -> SubjectSummary | None:
    found = scenario_run_of(ref)
    if found is None:
        return None
    run, case_id = found
    _, case = case_pair(base=None, candidate=run, case_id=case_id)
    if case is None:
        return None
    title = _one_line(f"{case_id} · {run.benchmark.title or run.benchmark_id}")
    return SubjectSummary(
        agent_id=None,
        run_id=run.run_id,
        case_id=case_id,
        title=title,
        url=reverse("evals:scenario-detail", args=[run.run_id, case_id]),
    )


def _thought(ref: str) -> SubjectSummary | None:
    pk = primary_key(ref)
    if pk is None:
        return None
    thought = thought_with_agent(pk)
    if thought is None:
        return None
    return SubjectSummary(
        agent_id=thought.agent_id,
        run_id=thought.eval_run_id,
        case_id="",
        title=_one_line(thought.content) or f"thought {pk}",
        url=reverse("stream:thought-detail", args=[thought.agent.name, pk]),
    )


def _episode(ref: str) -> SubjectSummary | None:
    pk = primary_key(ref)
    if pk is None:
        return None
    episode = episode_with_batch(pk)
    if episode is None:
        return None
    batch = episode.batch
    return SubjectSummary(
        agent_id=None,
        run_id=batch.run.run_id,
        case_id="",
        title=_one_line(
            f"episode {episode.index} of batch {batch.pk} ({batch.grid_map.name})"
        ),
        url=reverse("gridworld:episode-detail", args=[batch.pk, episode.index]),
    )


def _decision(ref: str) -> SubjectSummary | None:
    pk = primary_key(ref)
    if pk is None:
        return None
    decision = decision_with_pull(pk)
    if decision is None:
        return None
    url = ""
    if decision.pull is not None:
        url = pull_url_of(decision.repository.full_name, decision.pull.number)
    return SubjectSummary(
        agent_id=None,
        run_id="",
        case_id="",
        title=_one_line(decision.line) or f"decision {pk}",
        url=url,
    )


_READERS = {
    Subject.SCENARIO_RESULT.value: _scenario,
    Subject.THOUGHT.value: _thought,
    Subject.EPISODE.value: _episode,
    Subject.KEEPALIVE_DECISION.value: _decision,
}
