"""API-key authentication for agents and CI callers.

``Authorization: Bearer es_<prefix>_<secret>`` (or ``X-API-Key``). The prefix
finds the agent; the sha256 of the whole key is compared in constant time.
``request.user`` becomes the agent's owner and ``request.auth`` the agent.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from stream.services.agents import agent_authenticate


class AgentKeyAuthentication(authentication.BaseAuthentication):
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
        agent = agent_authenticate(key=key)
        if agent is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        return agent.owner, agent

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class AgentKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "stream.auth.AgentKeyAuthentication"
    name = "agentApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An agent API key from `python manage.py create_agent`.",
        }
