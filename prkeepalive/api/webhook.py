"""``POST /api/prkeepalive/github/webhook``: GitHub's webhook. No session,
no CSRF, no API key: the HMAC signature is the authentication."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from prkeepalive.services.intake import delivery_receive


@csrf_exempt
@require_POST
def github_webhook(request: HttpRequest) -> JsonResponse:
    result = delivery_receive(
        body=request.body,
        event=request.headers.get("X-GitHub-Event", ""),
        guid=request.headers.get("X-GitHub-Delivery", ""),
        signature=request.headers.get("X-Hub-Signature-256", ""),
    )
    return JsonResponse(result.body, status=result.status)
