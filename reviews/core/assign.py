"""Who reviews which item: the overlap share and round robin.

A queue's ``overlap_percent`` of its items get a second reviewer, so that
agreement can be measured. Which items those are is decided by a hash of
the item's subject, not by chance: refilling a queue, or filling another
queue with the same subjects, picks the same ones. Round robin hands each
new item to the reviewers with the fewest items so far, taking turns when
they are level, and never gives one item twice to the same reviewer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

SECOND_REVIEWER = 2
BUCKETS = 10_000


def subject_key(kind: str, ref: str) -> str:
    """The text a subject is hashed by: ``<kind>:<ref>``."""
    return f"{kind}:{ref}"


def bucket(key: str, *, salt: str = "") -> int:
    """A stable number in 0..``BUCKETS``-1 for ``key`` (the same on every
    machine and in every process, unlike ``hash``)."""
    digest = hashlib.sha256(f"{salt}|{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % BUCKETS


def reviewers_wanted(key: str, overlap_percent: int) -> int:
    """2 when the subject ``key`` falls in the queue's overlap share, else 1."""
    if not 0 <= overlap_percent <= 100:
        raise ValueError(f"overlap_percent must be 0..100, not {overlap_percent}")
    share = overlap_percent * BUCKETS // 100
    return SECOND_REVIEWER if bucket(key, salt="overlap") < share else 1


def round_robin(
    reviewers: Sequence[int],
    wanted: Sequence[int],
    loads: Mapping[int, int] | None = None,
) -> list[tuple[int, ...]]:
    """For each new item (``wanted[i]`` reviewers each), the reviewers it
    goes to, in order: the least loaded first (``loads``: items each already
    has), ties broken by whose turn it is. An item never gets the same
    reviewer twice, and gets at most ``len(reviewers)`` reviewers."""
    people = list(dict.fromkeys(reviewers))
    if not people:
        return [() for _ in wanted]
    load = {person: (loads or {}).get(person, 0) for person in people}
    turn = 0
    out: list[tuple[int, ...]] = []
    count = len(people)
    for number in wanted:
        order = sorted(
            range(count), key=lambda i: (load[people[i]], (i - turn) % count)
        )
        chosen = order[: max(0, min(number, count))]
        for index in chosen:
            load[people[index]] += 1
        if chosen:
            turn = (chosen[-1] + 1) % count
        out.append(tuple(people[index] for index in chosen))
    return out
