"""Control-plane labels and people: run cap, agent alias, human activations.

Pure and deterministic. Logins are compared normalised (lowercase, trailing
``[bot]`` stripped); label names are compared lowercase and trimmed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from prkeepalive.core.instruction import echoes_instruction
from prkeepalive.core.markers import has_damaged_marker, parse_markers
from prkeepalive.core.types import (
    AGENT_LABEL_PREFIX,
    DEFAULT_AGENT,
    KEEPALIVE_LABEL,
    MAX_RUNS_PREFIX,
    Comment,
    Policy,
    Reason,
)

DEFAULT_RUN_CAP = 2
MIN_RUN_CAP = 1
MAX_RUN_CAP = 5
_CAP_VALUE = re.compile(r"^[+-]?\d+$")
_BOT_SUFFIX = "[bot]"


def normalise_login(login: str) -> str:
    """``Stranske-Automation-Bot[bot]`` -> ``stranske-automation-bot``."""
    value = login.strip().lower()
    if value.endswith(_BOT_SUFFIX):
        value = value[: -len(_BOT_SUFFIX)]
    return value


def normalise_labels(labels: Iterable[str]) -> tuple[str, ...]:
    """Lowercase, trimmed, empty names dropped, sorted and unique."""
    return tuple(sorted({name.strip().lower() for name in labels if name.strip()}))


def has_keepalive_label(labels: Iterable[str]) -> bool:
    return KEEPALIVE_LABEL in normalise_labels(labels)


def run_cap(labels: Iterable[str]) -> int:
    """The run cap from ``agents:max-runs:X``: default 2, clamped to 1..5.

    A value that is not an integer (``agents:max-runs:abc``) is ignored as
    if the label were absent. With several valid labels the smallest wins,
    so adding a label can only tighten the cap.
    """
    values = []
    for name in normalise_labels(labels):
        if not name.startswith(MAX_RUNS_PREFIX):
            continue
        raw = name[len(MAX_RUNS_PREFIX) :].strip()
        if _CAP_VALUE.match(raw):
            values.append(min(MAX_RUN_CAP, max(MIN_RUN_CAP, int(raw))))
    return min(values) if values else DEFAULT_RUN_CAP


def agent_alias(labels: Iterable[str], policy: Policy) -> str:
    """The agent of this PR: an ``agent:<alias>`` label naming one of the
    policy's aliases, else the policy's first alias."""
    aliases = [a.lower() for a in policy.agent_aliases if a.strip()]
    for name in normalise_labels(labels):
        if name.startswith(AGENT_LABEL_PREFIX):
            alias = name[len(AGENT_LABEL_PREFIX) :].strip()
            if alias and (not aliases or alias in aliases):
                return alias
    return aliases[0] if aliases else DEFAULT_AGENT


def is_bot(comment: Comment, policy: Policy) -> bool:
    """GitHub apps, ``[bot]`` accounts and the configured automation logins."""
    raw = comment.author.strip().lower()
    if raw.endswith(_BOT_SUFFIX) or comment.author_type.lower() in ("bot", "app"):
        return True
    automation = {normalise_login(login) for login in policy.automation_logins}
    return normalise_login(comment.author) in automation


def mentions_agent(body: str, aliases: Iterable[str]) -> bool:
    """``@alias`` as a whole word, case-insensitive (``@codex``, not
    ``@codex-bot`` or ``me@codex.io``)."""
    for alias in aliases:
        if not alias.strip():
            continue
        pattern = rf"(?:^|[^A-Za-z0-9_.-])@{re.escape(alias.strip())}(?![A-Za-z0-9_-])"
        if re.search(pattern, body, re.IGNORECASE):
            return True
    return False


def activation_refusal(
    comment: Comment, policy: Policy, comments: Iterable[Comment] = ()
) -> tuple[Reason, str] | None:
    """Why ``comment`` is not a fresh human ``@agent`` activation, or None
    when it is. ``comments`` are the PR's comments (any order).

    ``no-human-activation``: an automation account, someone not on the
    allowlist, hidden markers (an instruction), no mention of the agent.
    ``markers-missing``: a copy of an instruction — a damaged marker
    (escaped or mangled on the way) or an instruction's fixed wording — or
    any comment after the PR's first round instruction: from then on a
    round continues from the latest instruction (whose markers it carries),
    and a person's ``@agent`` comment talks to the agent, it does not start
    another round.
    """
    if is_bot(comment, policy):
        login = normalise_login(comment.author)
        return (
            Reason.NO_HUMAN_ACTIVATION,
            f"the comment is by {login}, an automation account",
        )
    allowed = {normalise_login(login) for login in policy.allowed_authors}
    if allowed and normalise_login(comment.author) not in allowed:
        return (
            Reason.NO_HUMAN_ACTIVATION,
            f"{normalise_login(comment.author)} is not on the repository's "
            "list of people who may activate the agent",
        )
    if parse_markers(comment.body).is_present:
        return (
            Reason.NO_HUMAN_ACTIVATION,
            "the comment carries hidden keepalive markers (an instruction)",
        )
    if has_damaged_marker(comment.body):
        return (
            Reason.MARKERS_MISSING,
            "the comment carries a damaged keepalive marker (an escaped or "
            "mangled copy of an instruction), not a fresh activation",
        )
    if not mentions_agent(comment.body, policy.agent_aliases):
        names = ", ".join(f"@{a}" for a in policy.agent_aliases)
        return (
            Reason.NO_HUMAN_ACTIVATION,
            f"the comment does not mention the agent ({names})",
        )
    if echoes_instruction(comment.body):
        return (
            Reason.MARKERS_MISSING,
            "the comment repeats a round instruction's wording without its "
            "markers, not a fresh activation",
        )
    earlier = [c for c in comments if c.id < comment.id and is_instruction(c, policy)]
    if earlier:
        latest = max(earlier, key=lambda c: c.id)
        number = parse_markers(latest.body).round
        return (
            Reason.MARKERS_MISSING,
            f"round {number}'s instruction (comment {latest.id}) is already on "
            "the pull request: rounds continue from the latest instruction, and "
            "an @agent comment without its markers does not start one",
        )
    return None


def activation_problem(
    comment: Comment, policy: Policy, comments: Iterable[Comment] = ()
) -> str:
    """Why ``comment`` is not a human ``@agent`` activation ('' when it is)."""
    refusal = activation_refusal(comment, policy, comments)
    return refusal[1] if refusal else ""


def latest_human_activation(
    comments: Iterable[Comment], policy: Policy
) -> Comment | None:
    """The most recent fresh human ``@agent`` comment (see
    ``activation_refusal``).

    "Most recent" is by ``created_at`` then by id (GitHub ids grow with time).
    """
    every = tuple(comments)
    found = [c for c in every if activation_refusal(c, policy, every) is None]
    if not found:
        return None
    return max(found, key=lambda c: (c.created_at, c.id))


def is_instruction(comment: Comment, policy: Policy) -> bool:
    """A round instruction: round and trace markers, by a trusted account.

    The orchestrator may post as a person (the author invariant), so trust
    goes by account, not by user type: a bot, an automation login, an
    allowed author, or anyone when there is no allowlist (anyone may then
    activate, so anyone's markers count).
    """
    if not parse_markers(comment.body).is_complete:
        return False
    trusted = {
        normalise_login(x) for x in (*policy.automation_logins, *policy.allowed_authors)
    }
    return (
        is_bot(comment, policy)
        or not policy.allowed_authors
        or normalise_login(comment.author) in trusted
    )
