"""Who sees which review queue and which scores.

- Queues: a reviewer sees the queues they are a member of; staff see all.
- Scores, and the subjects one may score, for a person: staff everything;
  anyone else the subjects of no agent (eval runs, gridworld episodes,
  keepalive decisions are open to every signed-in user, as on their pages)
  and those of the agents they own or are a member of.
- For an API key: an agent's key its own agent's subjects only; a key that
  no agent holds (an external judge's) the subjects of no agent only.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from core.errors import NotFound
from reviews.models import ReviewQueue, Score
from stream.selectors import agent_list_visible


def queues_visible(*, user: Any) -> QuerySet[ReviewQueue]:
    """The queues ``user`` may open: staff all, others their own (member)."""
    queues = ReviewQueue.objects.all()
    if getattr(user, "is_staff", False):
        return queues
    if not getattr(user, "is_authenticated", False):
        return queues.none()
    return queues.filter(members=user).distinct()


def queue_get(*, user: Any, pk: int) -> ReviewQueue:
    """The queue ``pk`` if ``user`` may open it; ``NotFound`` otherwise (as
    for a queue that does not exist)."""
    queue = queues_visible(user=user).filter(pk=pk).first() if pk > 0 else None
    if queue is None:
        raise NotFound(f"no review queue {pk}", details={"id": pk})
    return queue


def queue_members(queue: ReviewQueue) -> list[Any]:
    """The queue's reviewers, in the order they were added."""
    return [
        member.user
        for member in queue.queuemember_set.select_related("user").order_by("pk")
    ]


def agents_of_user(user: Any) -> QuerySet[Any] | None:
    """The agent ids whose subjects ``user`` may see and score; None for
    every agent (staff)."""
    if getattr(user, "is_staff", False):
        return None
    return agent_list_visible(user=user).order_by().values("pk")


def key_agent_id(auth: Any, key: Any) -> int | None:
    """The agent a key stands for (``request.auth`` when it is not the key
    itself), or None for a key no agent holds."""
    if auth is None or auth is key:
        return None
    return int(auth.pk)


def subject_allowed(
    *, agent_id: int | None, user: Any = None, key: Any = None, auth: Any = None
) -> bool:
    """Whether the caller may see and score a subject of agent ``agent_id``
    (None: a subject of no agent). With a key, the key decides alone."""
    if key is not None:
        return agent_id == key_agent_id(auth, key)
    if not getattr(user, "is_authenticated", False):
        return False
    if agent_id is None:
        return True
    agents = agents_of_user(user)
    return agents is None or agents.filter(pk=agent_id).exists()


def scores_visible(
    *, user: Any = None, key: Any = None, auth: Any = None
) -> QuerySet[Score]:
    """The scores the caller may read (see the module docstring)."""
    scores = Score.objects.select_related("config", "author", "api_key")
    if key is not None:
        agent_id = key_agent_id(auth, key)
        if agent_id is None:
            return scores.filter(agent_id__isnull=True)
        return scores.filter(agent_id=agent_id)
    if not getattr(user, "is_authenticated", False):
        return scores.none()
    agents = agents_of_user(user)
    if agents is None:
        return scores
    return scores.filter(Q(agent_id__isnull=True) | Q(agent_id__in=agents))
