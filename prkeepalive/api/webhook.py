"""``POST /api/prkeepalive/github/webhook``: GitHub's webhook. No session,
no CSRF, no API key: the HMAC signature is the authentication.

The one place where intake's outcomes become HTTP answers: a verified
delivery is 200 when nothing more happens (a ping, a duplicate, a replay)
and 202 when it was recorded (queued, stored, ignored); a delivery no secret
verifies is 401 and an unusable one 400."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from prkeepalive.core.delivery import (
    DeliveryInvalid,
    DeliveryRefused,
    DeliveryUnverified,
    Receipt,
)
from prkeepalive.services.intake import delivery_receive

RECEIPT_STATUS = {
    Receipt.PONG: 200,
    Receipt.DUPLICATE: 200,
    Receipt.REPLAYED: 200,
    Receipt.IGNORED: 202,
    Receipt.STORED: 202,
    Receipt.QUEUED: 202,
}
REFUSAL_STATUS: dict[type[DeliveryRefused], int] = {
    DeliveryUnverified: 401,
    DeliveryInvalid: 400,
}


@csrf_exempt
@require_POST
def github_webhook(request: HttpRequest) -> JsonResponse:
    try:
        received = delivery_receive(
            body=request.body,
            event=request.headers.get("X-GitHub-Event", ""),
            guid=request.headers.get("X-GitHub-Delivery", ""),
            signature=request.headers.get("X-Hub-Signature-256", ""),
        )
    except DeliveryRefused as exc:
        return JsonResponse(exc.document(), status=REFUSAL_STATUS[type(exc)])
    return JsonResponse(received.body, status=RECEIPT_STATUS[received.receipt])
