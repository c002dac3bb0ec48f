"""Per-repository configuration: the policy the core reads, secrets by
reference, and GitHub clients. Secrets are read from the environment
variable a repository names (or ``<NAME>_FILE``), never stored or logged."""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings

from prkeepalive.core.types import Policy
from prkeepalive.github import GitHubClient
from prkeepalive.models import Repository


def secret(name: str) -> str:
    """The value of env ``NAME_FILE`` (a path) or ``NAME``; '' when unset."""
    if not name:
        return ""
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            return Path(path).read_text(encoding="utf-8").strip()
        except OSError:
            return ""
    return os.environ.get(name, "")


def webhook_secret(repository: Repository | None) -> str:
    if repository is not None and repository.webhook_secret_ref:
        value = secret(repository.webhook_secret_ref)
        if value:
            return value
    return str(settings.PRKEEPALIVE_WEBHOOK_SECRET or "")


def policy_for(repository: Repository) -> Policy:
    default = Policy()
    return Policy(
        agent_aliases=tuple(repository.agent_aliases) or default.agent_aliases,
        allowed_authors=tuple(repository.allowed_authors),
        automation_logins=tuple(repository.automation_logins),
        gate_workflow=repository.gate_workflow or default.gate_workflow,
    )


def client_for(repository: Repository, *, token_ref: str | None = None) -> GitHubClient:
    """A client with the repository's bot token (or the token ``token_ref``
    names)."""
    return GitHubClient(
        base_url=settings.PRKEEPALIVE_GITHUB_API_URL,
        token=secret(token_ref if token_ref is not None else repository.token_ref),
        repository=repository.full_name,
        timeout_s=settings.PRKEEPALIVE_GITHUB_TIMEOUT_S,
        retries=settings.PRKEEPALIVE_GITHUB_RETRIES,
        max_wait_s=settings.PRKEEPALIVE_GITHUB_MAX_WAIT_S,
    )
