"""The checks and choices of the fills that read other apps' records: the
thoughts of an agent in a time range, the episodes of a gridworld batch and
the keepalive decisions of a pull request.

- a time range is two optional moments, the first before the second;
- a fill that finds more than its maximum keeps a sample of that size,
  chosen by a hash of a seed and each ref, so the same fill over the same
  records keeps the same ones;
- a pull request is named ``owner/name#number``, as on its forge.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime

from core.errors import SchemaInvalid, SchemaProblem
from reviews.core.assign import bucket

# owner/name#number, the way the keepalive pages and the forge name a PR.
PULL_PATTERN = re.compile(
    r"^([A-Za-z0-9_.-]{1,100})/([A-Za-z0-9_.-]{1,100})#(\d{1,9})$"
)
ELIGIBLE_CHOICES = {"": None, "any": None, "yes": True, "no": False}


def _refusal(field: str, message: str) -> SchemaInvalid:
    return SchemaInvalid(message, problems=[SchemaProblem(field, "invalid", message)])


def time_range_check(
    since: datetime | None, until: datetime | None
) -> tuple[datetime | None, datetime | None]:
    """The range unchanged when ``since`` is before ``until`` (either may be
    None: open on that side); ``SchemaInvalid`` naming ``until`` otherwise."""
    if since is not None and until is not None and since >= until:
        message = "the end of the range must be after its start."
        raise SchemaInvalid(
            message, problems=[SchemaProblem("until", "invalid", message)]
        )
    return since, until


def eligible_choice(value: object) -> bool | None:
    """The eligibility filter asked for: True (eligible only), False (not
    eligible only) or None (any); ``SchemaInvalid`` naming ``eligible`` for
    anything but ``yes``, ``no``, ``any`` or nothing."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ELIGIBLE_CHOICES:
        return ELIGIBLE_CHOICES[value.strip().lower()]
    message = "the eligibility must be yes, no or any."
    raise SchemaInvalid(
        message, problems=[SchemaProblem("eligible", "invalid", message)]
    )


def capped_sample(refs: Sequence[str], cap: int, *, seed: str) -> list[str]:
    """``refs`` (each once) when there are at most ``cap``; else ``cap`` of
    them, the same ones every time for the same ``seed``. Sorted as given
    (numbers by value, other refs as text)."""
    unique = list(dict.fromkeys(refs))
    if cap <= 0:
        return []
    if len(unique) > cap:
        ranked = sorted(unique, key=lambda ref: (bucket(ref, salt=seed), ref))
        unique = ranked[:cap]
    return sorted(unique, key=_order)


def share_sample(refs: Sequence[str], percent: float, *, seed: str) -> list[str]:
    """``percent``% of ``refs`` (rounded up, at least one when there is any),
    chosen as ``capped_sample`` chooses."""
    unique = list(dict.fromkeys(refs))
    if not unique:
        return []
    count = min(len(unique), max(1, math.ceil(len(unique) * percent / 100)))
    return capped_sample(unique, count, seed=seed)


def pull_parse(text: object) -> tuple[str, str, int] | None:
    """``(owner, name, number)`` of ``owner/name#number``; None otherwise."""
    if not isinstance(text, str):
        return None
    found = PULL_PATTERN.match(text.strip())
    if found is None or int(found.group(3)) == 0:
        return None
    return found.group(1), found.group(2), int(found.group(3))


def _order(ref: str) -> tuple[int, int, str]:
    if ref.isascii() and ref.isdigit():
        return (0, int(ref), "")
    return (1, 0, ref)
