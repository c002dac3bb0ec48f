"""Webhook intake: verify, record the delivery, queue the work, answer fast.

1. The signature (``X-Hub-Signature-256``, HMAC-SHA256 of the raw body) is
   checked in constant time against every configured secret before the body
   is parsed or anything is stored; a missing, malformed or wrong signature
   is refused and leaves no trace, and so is every delivery while no secret
   is configured (the answer says so): ``DeliveryUnverified``. A body
   signed with one repository's secret that names another repository is
   refused the same way.
2. Then the body is parsed with the API's rules (UTF-8, nesting depth, no
   NaN, infinity, NUL, lone surrogates or integers past 64 bits) and the
   GUID and event headers are checked: ``DeliveryInvalid`` names what is
   wrong.
3. The delivery GUID is the idempotency key: a redelivery of a handled,
   processing, retrying or ignored GUID is a no-op; a failed one, or one
   that is still waiting to run, is queued again.
4. A new GUID whose event and body equal those of a delivery received
   within ``PRKEEPALIVE_REPLAY_WINDOW_S`` is a replay: recorded as
   ``replayed``, never processed (GitHub's redeliveries
   keep their GUID).
5. Events no lane handles, and events of repositories not registered or
   paused, are recorded as ignored with the reason (GitHub is never asked
   about them).
6. Handled events are sent to the worker after the transaction commits. When
   the task queue cannot be reached the delivery stays stored and the answer
   is ``stored``: the reconciler sends it once the queue is back, so
   GitHub need not redeliver.

The service answers in domain terms (a ``Received`` with its ``Receipt``, or
a ``DeliveryRefused`` error); ``prkeepalive.api.webhook`` chooses the HTTP
status of each.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from rest_framework.exceptions import ParseError, ValidationError

from core.errors import SchemaInvalid, SchemaProblem
from core.text import shorten
from evalsite.parsers import parse_json_body
from prkeepalive.core.delivery import (
    DeliveryInvalid,
    DeliveryUnverified,
    Receipt,
    action_of,
    header_problems,
    payload_digest,
    signature_digest,
)
from prkeepalive.core.facts import pull_number
from prkeepalive.core.wire import parse_event
from prkeepalive.models import Delivery, Repository
from prkeepalive.services.config import secret, webhook_secret
from prkeepalive.services.dispatch import event_route
from prkeepalive.services.sending import delivery_send

logger = logging.getLogger(__name__)

REASON_MAX = 300
NAME_MAX = 200  # the length of Repository.full_name
# A redelivery of a delivery in one of these states is sent to the worker
# again (the worker's claim runs it once).
SEND_AGAIN = (Delivery.Status.QUEUED, Delivery.Status.FAILED)


@dataclass(frozen=True, slots=True)
class Received:
    """A verified delivery's outcome and the answer's body (its ``status``
    is ``receipt``'s value)."""

    receipt: Receipt
    body: dict[str, Any]


def _received(receipt: Receipt, **rest: Any) -> Received:
    return Received(receipt, {"status": receipt.value, **rest})


def signature_valid(secret_value: str, body: bytes, header: str) -> bool:
    """Whether ``header`` is GitHub's signature of ``body`` under the secret
    (any text: a header that is not ``sha256=<hex>`` is simply wrong)."""
    given = signature_digest(header)
    if not secret_value or given is None:
        return False
    expected = hmac.new(secret_value.encode(), body, hashlib.sha256).digest()
    return hmac.compare_digest(expected, given)


def sign(secret_value: str, body: bytes) -> str:
    """The header value GitHub would send (used by tests, bench, docs)."""
    return "sha256=" + hmac.new(secret_value.encode(), body, hashlib.sha256).hexdigest()


def configured_secrets() -> list[str]:
    """The site's webhook secret and every secret a repository names."""
    values = [str(settings.PRKEEPALIVE_WEBHOOK_SECRET or "")]
    refs = (
        Repository.objects.exclude(webhook_secret_ref="")
        .values_list("webhook_secret_ref", flat=True)
        .distinct()
    )
    values += [secret(ref) for ref in refs]
    return list(dict.fromkeys(value for value in values if value))


def _secret_unset(event: str) -> DeliveryUnverified:
    logger.warning(
        "[PRKeepalive] webhook_refused event=%s reason=no-secret-configured",
        shorten(event, 60),
    )
    return DeliveryUnverified(
        "webhook_secret_unset",
        "No webhook secret is configured, so no delivery can be verified: "
        "set PRKEEPALIVE_WEBHOOK_SECRET (or PRKEEPALIVE_WEBHOOK_SECRET_FILE) "
        "to the secret of the GitHub webhook and restart.",
        {"header:X-Hub-Signature-256": ["cannot be checked: no secret"]},
    )


def _bad_signature(event: str) -> DeliveryUnverified:
    logger.warning(
        "[PRKeepalive] webhook_refused event=%s reason=signature", shorten(event, 60)
    )
    return DeliveryUnverified(
        "bad_signature",
        "Missing or wrong X-Hub-Signature-256.",
        {"header:X-Hub-Signature-256": ["missing or wrong"]},
    )


def _parsed(body: bytes) -> dict[str, Any]:
    """The body parsed with the API's rules; ``DeliveryInvalid`` refuses it."""
    try:
        payload = parse_json_body(body)
    except ParseError as exc:
        raise DeliveryInvalid(
            "The body is not acceptable JSON.", {"$": [str(exc.detail)]}
        ) from None
    except ValidationError as exc:
        fields = {
            ("$." + path if path != "$" else path): [str(r) for r in reasons]
            for path, reasons in dict(exc.detail).items()
        }
        raise DeliveryInvalid(
            "The body holds text or numbers no column can store.", fields
        ) from None
    if not isinstance(payload, dict):
        raise DeliveryInvalid("Invalid delivery.", {"$": ["must be a JSON object"]})
    return payload


def _repository_name(payload: dict[str, Any]) -> str:
    repository = payload.get("repository")
    name = repository.get("full_name") if isinstance(repository, dict) else None
    return name if isinstance(name, str) else ""


def _repository_of(payload: dict[str, Any]) -> Repository | None:
    name = _repository_name(payload)
    if not name or len(name) > NAME_MAX:
        return None  # no registered repository has such a name
    return Repository.objects.filter(full_name__iexact=name).first()


def _signing_secret(body: bytes, signature: str, event: str) -> str:
    """The configured secret that signed ``body``: the site's secret first,
    which needs no query (it signs most deliveries), then the secrets the
    repositories name, in ``configured_secrets`` order."""
    site = str(settings.PRKEEPALIVE_WEBHOOK_SECRET or "")
    if site and signature_valid(site, body, signature):
        return site
    secrets = configured_secrets()
    if not secrets:
        raise _secret_unset(event)
    signed_with = next(
        (
            value
            for value in secrets
            if value != site and signature_valid(value, body, signature)
        ),
        None,
    )
    if signed_with is None:
        raise _bad_signature(event)
    return signed_with


def delivery_receive(*, body: bytes, event: str, guid: str, signature: str) -> Received:
    """Verify and record one webhook delivery (see module docstring).

    Three statements for a new delivery signed with the site's secret (the
    repository, the GUID and a replay's original in one read, the insert),
    then the send to the queue.

    Raises ``DeliveryUnverified`` or ``DeliveryInvalid`` (nothing stored)."""
    signed_with = _signing_secret(body, signature, event)
    problems = header_problems(guid=guid, event=event)
    if problems:
        raise DeliveryInvalid("Invalid delivery.", problems)
    payload = _parsed(body)
    repository = _repository_of(payload)
    own_secret = webhook_secret(repository)
    if not own_secret:
        raise _secret_unset(event)
    if not hmac.compare_digest(own_secret.encode(), signed_with.encode()):
        raise _bad_signature(event)
    if event == "ping":
        return _received(Receipt.PONG)
    digest = payload_digest(event, body)
    existing, replayed = _known(guid, digest)
    if existing is not None and existing.status not in SEND_AGAIN:
        return _received(Receipt.DUPLICATE, delivery=guid)
    if existing is None and replayed is not None:
        return _record_replay(guid, event, payload, repository, digest, replayed)
    return _record(guid, event, payload, repository, digest, existing)


def _known(guid: str, digest: str) -> tuple[Delivery | None, Delivery | None]:
    """In one query: the delivery recorded under ``guid``, and the first
    delivery received within ``PRKEEPALIVE_REPLAY_WINDOW_S`` with the same
    event and body (``digest``) that is not itself a replay, the one a new
    GUID would repeat. Bodies are left unread (neither answer needs them)."""
    match = Q(guid=guid)
    window = settings.PRKEEPALIVE_REPLAY_WINDOW_S
    if window > 0:
        since = timezone.now() - timedelta(seconds=window)
        match |= Q(digest=digest, received_at__gte=since) & ~Q(
            status=Delivery.Status.REPLAYED
        )
    rows = list(
        Delivery.objects.filter(match).defer("payload").order_by("received_at", "pk")
    )
    existing = next((row for row in rows if row.guid == guid), None)
    replayed = next(
        (
            row
            for row in rows
            if row.guid != guid
            and row.digest == digest
            and row.status != Delivery.Status.REPLAYED
            and window > 0
        ),
        None,
    )
    return existing, replayed


def _one_statement() -> AbstractContextManager[object]:
    """Where a single write runs: a savepoint inside a caller's transaction
    (a failed insert must not break it), nothing in autocommit, where the
    statement is its own transaction (BEGIN and COMMIT were two of the
    request's seven round trips to the database)."""
    if transaction.get_connection().in_atomic_block:
        return transaction.atomic()
    return nullcontext()


def _record_replay(
    guid: str,
    event: str,
    payload: dict[str, Any],
    repository: Repository | None,
    digest: str,
    original: Delivery,
) -> Received:
    """A new GUID repeating a recent delivery: recorded (without its body,
    which the original holds), never processed."""
    try:
        with _one_statement():
            Delivery.objects.create(
                guid=guid,
                event=event,
                action=action_of(payload),
                repository=repository,
                pull_number=original.pull_number,
                digest=digest,
                status=Delivery.Status.REPLAYED,
                reason=f"repeats delivery {original.guid} (same event and body)",
            )
    except IntegrityError:
        return _received(Receipt.DUPLICATE, delivery=guid)
    logger.warning(
        "[PRKeepalive] webhook_replayed event=%s guid=%s original=%s",
        event,
        guid,
        original.guid,
    )
    return _received(Receipt.REPLAYED, delivery=guid, original=original.guid)


def _record(
    guid: str,
    event: str,
    payload: dict[str, Any],
    repository: Repository | None,
    digest: str,
    existing: Delivery | None,
) -> Received:
    reason = ""
    number = None
    if repository is None:
        name = shorten(_repository_name(payload), 120) or "(none named)"
        reason = f"the repository {name} is not registered for keepalive"
    elif not repository.is_active:
        reason = f"the repository {repository.full_name} is paused (not active)"
    else:
        try:
            parsed = parse_event(event, payload)
        except SchemaInvalid as exc:
            # The body is the payload: its paths start at "$", not "payload".
            raise DeliveryInvalid(
                "The payload does not have the event's shape.",
                [
                    SchemaProblem(
                        "$" + p.path.removeprefix("payload"), p.code, p.message
                    )
                    for p in exc.problems
                ],
            ) from None
        routed = event_route(repository, parsed)
        reason = routed.ignored
        number = pull_number(routed.event)
    # Names and actions come from the payload: the reason must fit its column.
    reason = shorten(reason, REASON_MAX - 40)
    status = Delivery.Status.IGNORED if reason else Delivery.Status.QUEUED
    sent: list[bool] = []
    try:
        with _one_statement():
            if existing is not None:
                Delivery.objects.filter(pk=existing.pk, status__in=SEND_AGAIN).update(
                    status=status,
                    error="",
                    retry_at=None,
                    reason=reason,
                    pull_number=number,
                )
                delivery = existing
            else:
                delivery = Delivery.objects.create(
                    guid=guid,
                    event=event,
                    action=action_of(payload),
                    repository=repository,
                    pull_number=number,
                    payload=payload,
                    digest=digest,
                    status=status,
                    reason=reason,
                )
            if status == Delivery.Status.QUEUED:
                pk = delivery.pk
                # Run now in autocommit (the row is committed), at the
                # commit of a caller's transaction otherwise.
                transaction.on_commit(
                    lambda: sent.append(delivery_send(delivery_pk=pk, guid=guid))
                )
    except IntegrityError:
        # The same GUID arrived twice at once; the other request owns it.
        return _received(Receipt.DUPLICATE, delivery=guid)
    if reason:
        logger.info("[PRKeepalive] webhook_ignored event=%s guid=%s", event, guid)
        return _received(Receipt.IGNORED, reason=reason, delivery=guid)
    if sent == [False]:
        return _received(
            Receipt.STORED,
            delivery=guid,
            detail="The task queue is unreachable; the delivery is stored "
            "and runs when the queue answers again (no redelivery needed).",
        )
    logger.info("[PRKeepalive] webhook_queued event=%s guid=%s", event, guid)
    return _received(Receipt.QUEUED, delivery=guid)
