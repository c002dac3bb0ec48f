"""API-key authentication, for agents and CI callers of every app.

``Authorization: Bearer es_<prefix>_<secret>`` (or ``X-API-Key``). The prefix
finds the key; the sha256 of the whole key is compared in constant time.
A revoked or expired key gets the same 401. When the key was last used is
written at most once a minute (``api_key_used``).
``request.auth`` becomes what the key stands for (``accounts.holders``: an
agent's key gives the agent), ``request.user`` its owner (the key's owner
when it has none); ``request_key`` gives the key itself. A key only reaches
what its scopes cover (``core.scopes``): 403 otherwise.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, throttling
from rest_framework.request import Request

from accounts.holders import KeyRefused, key_of, key_principal
from accounts.models import ApiKey
from accounts.services import api_key_authenticate, api_key_used
from core.scopes import key_may, required_scope
from evalsite.cachesafe import cache_errors, cache_failed_open

INVALID = "Invalid or revoked API key."


def request_key(request: Request) -> ApiKey | None:
    """The key a request authenticated with; None for a session (session
    authentication sets no ``auth``)."""
    return key_of(request.auth)


class ApiKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        header = authentication.get_authorization_header(request).decode(
            "latin-1", errors="replace"
        )
        key = ""
        if header:
            scheme, _, value = header.partition(" ")
            if scheme.lower() not in ("bearer", "api-key"):
                return None
            key = value.strip()
        else:
            key = request.META.get("HTTP_X_API_KEY", "").strip()
        if not key:
            return None
        api_key = api_key_authenticate(key=key)
        if api_key is None:
            raise exceptions.AuthenticationFailed(INVALID)
        try:
            principal = key_principal(api_key)
        except KeyRefused:
            raise exceptions.AuthenticationFailed(INVALID) from None
        # Checked here, for every view whatever its permission classes: a key
        # only reaches the operations its scopes cover (core.scopes).
        required = required_scope(request.method or "GET", request.path_info)
        if not key_may(api_key.scopes, required):
            raise exceptions.PermissionDenied(
                f"This API key may not {request.method} {request.path_info}: "
                + (
                    f"it needs the {required!r} scope."
                    if required
                    else "no API key may call it."
                )
            )
        api_key_used(api_key=api_key)
        # The principal's owner where it has one (an agent's), else the key's.
        return getattr(principal, "owner", None) or api_key.owner, principal

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class ApiKeyRateThrottle(throttling.SimpleRateThrottle):
    """At most ``API_KEY_THROTTLE_RATE`` requests per API key (429 with
    Retry-After past it); sessions and anonymous callers are not counted."""

    scope = "api_key"

    def get_rate(self) -> str:
        return str(settings.API_KEY_THROTTLE_RATE)

    def allow_request(self, request: Request, view: Any) -> bool:
        """A cache that cannot be reached lets the request through, counted
        and logged (``evalsite.cachesafe``): losing the counter must not
        take the API with it."""
        try:
            return super().allow_request(request, view)
        except cache_errors() as exc:
            cache_failed_open(what="api_key_throttle", exc=exc)
            return True

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        api_key = request_key(request)
        if api_key is None:
            return None
        return f"throttle_api_key_{api_key.prefix}"


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.auth.ApiKeyAuthentication"
    name = "agentApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "An agent API key, made on the agent's page or with "
                "`python manage.py create_agent`."
            ),
        }
