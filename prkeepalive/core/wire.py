"""GitHub payloads and explain requests -> the core's types.

Every JSON shape is validated here, once; all problems are reported together
(``SchemaInvalid`` with JSON paths), never only the first. Field names on the
wire are GitHub's (snake_case) inside ``payload`` and camelCase in the
explain ``state``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.errors import SchemaInvalid, SchemaProblem
from prkeepalive.core.types import Comment, Event, GateConclusion, LastProcessed

REACTION_KEYS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


class _Reader:
    def __init__(self) -> None:
        self.problems: list[SchemaProblem] = []

    def obj(self, value: Any, path: str, *, required: bool = True) -> Mapping[str, Any]:
        if isinstance(value, Mapping):
            return value
        if value is not None or required:
            self.problems.append(SchemaProblem(path, "type", "must be an object"))
        return {}

    def int_(self, value: Any, path: str, *, required: bool = True) -> int | None:
        if value is None and not required:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, str) and value.strip().isdigit():
                return int(value)
            self.problems.append(SchemaProblem(path, "type", "must be an integer"))
            return None
        return value

    def str_(self, value: Any, path: str, *, required: bool = False) -> str:
        if value is None and not required:
            return ""
        if not isinstance(value, str):
            self.problems.append(SchemaProblem(path, "type", "must be a string"))
            return ""
        return value

    def list_(self, value: Any, path: str) -> Sequence[Any]:
        if value is None:
            return ()
        if not isinstance(value, list):
            self.problems.append(SchemaProblem(path, "type", "must be an array"))
            return ()
        return value

    def raise_if_any(self, what: str) -> None:
        if self.problems:
            raise SchemaInvalid(f"{what} is invalid", problems=self.problems)


def _reactions(value: Any) -> tuple[str, ...]:
    """GitHub's rollup (``{"rocket": 1, ...}``) or a plain list of contents."""
    if isinstance(value, Mapping):
        return tuple(
            k for k in REACTION_KEYS if isinstance(value.get(k), int) and value[k] > 0
        )
    if isinstance(value, list):
        return tuple(sorted({str(v).lower() for v in value if isinstance(v, str)}))
    return ()


def comment_from_github(
    raw: Mapping[str, Any], path: str, reader: _Reader
) -> Comment | None:
    comment_id = reader.int_(raw.get("id"), f"{path}.id")
    user = reader.obj(raw.get("user"), f"{path}.user")
    if comment_id is None:
        return None
    return Comment(
        id=comment_id,
        author=reader.str_(user.get("login"), f"{path}.user.login", required=True),
        author_type=reader.str_(user.get("type"), f"{path}.user.type") or "User",
        body=reader.str_(raw.get("body"), f"{path}.body"),
        reactions=_reactions(raw.get("reactions")),
        created_at=reader.str_(raw.get("created_at"), f"{path}.created_at"),
    )


def parse_event(name: str, payload: Any) -> Event:
    """A webhook payload of ``issue_comment`` or ``workflow_run`` as an Event;
    other event names give an Event with only the name (no lane handles it)."""
    reader = _Reader()
    body = reader.obj(payload, "payload")
    reader.raise_if_any("payload")
    action = reader.str_(body.get("action"), "payload.action")
    if name == "issue_comment":
        issue = reader.obj(body.get("issue"), "payload.issue")
        number = reader.int_(issue.get("number"), "payload.issue.number")
        raw_comment = reader.obj(body.get("comment"), "payload.comment")
        comment = (
            comment_from_github(raw_comment, "payload.comment", reader)
            if raw_comment
            else None
        )
        reader.raise_if_any("payload")
        return Event(
            name=name,
            action=action,
            comment=comment,
            issue_number=number,
            is_pull_request=isinstance(issue.get("pull_request"), Mapping),
        )
    if name == "workflow_run":
        run = reader.obj(body.get("workflow_run"), "payload.workflow_run")
        numbers: list[int] = []
        for i, pr in enumerate(
            reader.list_(run.get("pull_requests"), "payload.workflow_run.pull_requests")
        ):
            entry = reader.obj(pr, f"payload.workflow_run.pull_requests[{i}]")
            n = reader.int_(
                entry.get("number"), f"payload.workflow_run.pull_requests[{i}].number"
            )
            if n is not None:
                numbers.append(n)
        activation = reader.int_(
            body.get("activation_comment_id"),
            "payload.activation_comment_id",
            required=False,
        )
        event = Event(
            name=name,
            action=action,
            workflow_name=reader.str_(run.get("name"), "payload.workflow_run.name"),
            status=reader.str_(run.get("status"), "payload.workflow_run.status"),
            conclusion=reader.str_(
                run.get("conclusion"), "payload.workflow_run.conclusion"
            ),
            head_sha=reader.str_(run.get("head_sha"), "payload.workflow_run.head_sha"),
            display_title=reader.str_(
                run.get("display_title"), "payload.workflow_run.display_title"
            ),
            pull_numbers=tuple(sorted(set(numbers))),
            activation_comment_id=activation,
        )
        reader.raise_if_any("payload")
        return event
    return Event(name=name, action=action)


def gate_from_run(status: str, conclusion: str) -> GateConclusion:
    """A Gate run's status/conclusion as the comment lane reads it."""
    if status.lower() != "completed" or not conclusion:
        return GateConclusion.PENDING
    if conclusion.lower() == "success":
        return GateConclusion.SUCCESS
    return GateConclusion.FAILURE


def parse_gate(value: Any, path: str, reader: _Reader) -> GateConclusion:
    raw = reader.str_(value, path).strip().lower() or "pending"
    try:
        return GateConclusion(raw)
    except ValueError:
        reader.problems.append(
            SchemaProblem(path, "enum", "must be one of success, pending, failure")
        )
        return GateConclusion.PENDING


def parse_state_comment(raw: Any, path: str, reader: _Reader) -> Comment | None:
    """An explain-state comment: ``{id, author, authorType, body, reactions,
    createdAt}``."""
    entry = reader.obj(raw, path)
    comment_id = reader.int_(entry.get("id"), f"{path}.id")
    author = reader.str_(entry.get("author"), f"{path}.author", required=True)
    if comment_id is None:
        return None
    return Comment(
        id=comment_id,
        author=author,
        author_type=reader.str_(entry.get("authorType"), f"{path}.authorType")
        or "User",
        body=reader.str_(entry.get("body"), f"{path}.body"),
        reactions=_reactions(reader.list_(entry.get("reactions"), f"{path}.reactions")),
        created_at=reader.str_(entry.get("createdAt"), f"{path}.createdAt"),
    )


def parse_last_processed(raw: Any, path: str, reader: _Reader) -> LastProcessed:
    entry = reader.obj(raw, path, required=False)
    return LastProcessed(
        instruction_id=reader.int_(
            entry.get("instructionId"), f"{path}.instructionId", required=False
        ),
        head_sha=reader.str_(entry.get("headSha"), f"{path}.headSha"),
    )
