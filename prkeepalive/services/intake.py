"""Webhook intake: verify, record the delivery, queue the work, answer fast.

1. The signature (``X-Hub-Signature-256``, HMAC-SHA256 of the raw body) is
   checked in constant time before anything is stored; a missing or wrong
   signature is refused and leaves no trace, and so is every delivery while
   no secret is configured (the answer says so).
2. The delivery GUID is the idempotency key: a redelivery of a handled (or
   queued, retrying, or ignored) GUID is a no-op; a failed one is queued
   again.
3. Events no lane handles, and events of repositories not registered or
   paused, are recorded as ignored with the reason (GitHub is never asked
   about them).
4. Handled events are queued on Celery after the transaction commits.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from core.errors import SchemaInvalid, SchemaProblem, error_document
from prkeepalive.core.facts import pull_number
from prkeepalive.core.lanes import unhandled_reason
from prkeepalive.core.wire import parse_event
from prkeepalive.models import Delivery, Repository
from prkeepalive.services.config import policy_for, webhook_secret
from prkeepalive.services.dispatch import event_is_handled

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IntakeResult:
    status: int
    body: dict[str, Any]


def signature_valid(secret: str, body: bytes, header: str) -> bool:
    if not secret or not header.startswith("sha256="):
        return False
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header[len("sha256=") :].strip())


def sign(secret: str, body: bytes) -> str:
    """The header value GitHub would send (used by tests, bench, docs)."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _repository_name(payload: Any) -> str:
    if not isinstance(payload, dict):
        return ""
    repository = payload.get("repository")
    name = repository.get("full_name") if isinstance(repository, dict) else None
    return name if isinstance(name, str) else ""


def _repository_of(payload: Any) -> Repository | None:
    name = _repository_name(payload)
    if not name:
        return None
    return Repository.objects.filter(full_name__iexact=name).first()


def delivery_receive(
    *, body: bytes, event: str, guid: str, signature: str
) -> IntakeResult:
    """Verify and record one webhook delivery (see module docstring)."""
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        payload = None
    repository = _repository_of(payload)
    secret_value = webhook_secret(repository)
    if not secret_value:
        logger.warning(
            "[PRKeepalive] webhook_refused event=%s reason=no-secret-configured", event
        )
        return IntakeResult(
            401,
            error_document(
                "webhook_secret_unset",
                "No webhook secret is configured, so no delivery can be verified: "
                "set PRKEEPALIVE_WEBHOOK_SECRET (or PRKEEPALIVE_WEBHOOK_SECRET_FILE) "
                "to the secret of the GitHub webhook and restart.",
                {"header:X-Hub-Signature-256": ["cannot be checked: no secret"]},
            ),
        )
    if not signature_valid(secret_value, body, signature):
        logger.warning("[PRKeepalive] webhook_refused event=%s reason=signature", event)
        return IntakeResult(
            401,
            error_document(
                "bad_signature",
                "Missing or wrong X-Hub-Signature-256.",
                {"header:X-Hub-Signature-256": ["missing or wrong"]},
            ),
        )
    problems = {}
    if not guid:
        problems["header:X-GitHub-Delivery"] = ["is required"]
    if not event:
        problems["header:X-GitHub-Event"] = ["is required"]
    if not isinstance(payload, dict):
        problems["$"] = ["must be a JSON object"]
    if problems:
        return IntakeResult(
            400, error_document("invalid", "Invalid delivery.", problems)
        )
    if event == "ping":
        return IntakeResult(200, {"status": "pong"})
    existing = Delivery.objects.filter(guid=guid).first()
    if existing is not None and existing.status != Delivery.Status.FAILED:
        return IntakeResult(200, {"status": "duplicate", "delivery": guid})

    reason = ""
    number = None
    if repository is None:
        name = _repository_name(payload) or "(none named)"
        reason = f"the repository {name} is not registered for keepalive"
    elif not repository.is_active:
        reason = f"the repository {repository.full_name} is paused (not active)"
    else:
        try:
            parsed = parse_event(event, payload)
        except SchemaInvalid as exc:
            # The body is the payload: its paths start at "$", not "payload".
            return IntakeResult(
                400,
                error_document(
                    "invalid",
                    "The payload does not have the event's shape.",
                    [
                        SchemaProblem(
                            "$" + p.path.removeprefix("payload"), p.code, p.message
                        )
                        for p in exc.problems
                    ],
                ),
            )
        if not event_is_handled(repository, parsed):
            reason = unhandled_reason(parsed, policy_for(repository))
        number = pull_number(parsed)
    status = Delivery.Status.IGNORED if reason else Delivery.Status.QUEUED
    try:
        with transaction.atomic():
            if existing is not None:
                Delivery.objects.filter(
                    pk=existing.pk, status=Delivery.Status.FAILED
                ).update(status=status, error="", reason=reason, pull_number=number)
                delivery = existing
            else:
                delivery = Delivery.objects.create(
                    guid=guid,
                    event=event,
                    action=str(payload.get("action") or "")[:50],
                    repository=repository,
                    pull_number=number,
                    payload=payload,
                    status=status,
                    reason=reason,
                )
            if status == Delivery.Status.QUEUED:
                from prkeepalive.tasks.deliveries import (
                    process_delivery as process_delivery_task,
                )

                pk = delivery.pk
                transaction.on_commit(lambda: process_delivery_task.delay(pk))
    except IntegrityError:
        # The same GUID arrived twice at once; the other request owns it.
        return IntakeResult(200, {"status": "duplicate", "delivery": guid})
    if reason:
        logger.info("[PRKeepalive] webhook_ignored event=%s guid=%s", event, guid)
        return IntakeResult(
            202, {"status": "ignored", "reason": reason, "delivery": guid}
        )
    logger.info("[PRKeepalive] webhook_queued event=%s guid=%s", event, guid)
    return IntakeResult(202, {"status": "queued", "delivery": guid})
