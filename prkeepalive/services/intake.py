"""Webhook intake: verify, record the delivery, queue the work, answer fast.

1. The signature (``X-Hub-Signature-256``, HMAC-SHA256 of the raw body) is
   checked in constant time before anything is stored; a missing or wrong
   signature, or no configured secret, is refused and leaves no trace.
2. The delivery GUID is the idempotency key: a redelivery of a handled (or
   queued, or ignored) GUID is a no-op; a failed one is queued again.
3. Events no lane handles are recorded as ignored with the reason.
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


def _repository_of(payload: Any) -> Repository | None:
    if not isinstance(payload, dict):
        return None
    name = (payload.get("repository") or {}).get("full_name")
    if not isinstance(name, str):
        return None
    return Repository.objects.filter(full_name__iexact=name, is_active=True).first()


def delivery_receive(
    *, body: bytes, event: str, guid: str, signature: str
) -> IntakeResult:
    """Verify and record one webhook delivery (see module docstring)."""
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        payload = None
    repository = _repository_of(payload)
    if not signature_valid(webhook_secret(repository), body, signature):
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
    if repository is None:
        reason = "the repository is not registered for keepalive"
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
    status = Delivery.Status.IGNORED if reason else Delivery.Status.QUEUED
    try:
        with transaction.atomic():
            if existing is not None:
                Delivery.objects.filter(
                    pk=existing.pk, status=Delivery.Status.FAILED
                ).update(status=status, error="", reason=reason)
                delivery = existing
            else:
                delivery = Delivery.objects.create(
                    guid=guid,
                    event=event,
                    action=str(payload.get("action") or "")[:50],
                    repository=repository,
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
