"""prkeepalive.services.config: secrets by reference (``NAME_FILE`` first,
then ``NAME``), the webhook secret of a repository, the policy the rules read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prkeepalive.core.types import Policy
from prkeepalive.models import Repository
from prkeepalive.services.config import policy_for, secret, webhook_secret


def test_a_secret_file_wins_over_the_variable_and_is_stripped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KA_TOKEN", "from-env")
    assert secret("KA_TOKEN") == "from-env"
    (tmp_path / "token").write_text("from-file\n", encoding="utf-8")
    monkeypatch.setenv("KA_TOKEN_FILE", str(tmp_path / "token"))
    assert secret("KA_TOKEN") == "from-file"


def test_an_unreadable_file_or_an_unset_name_is_no_secret(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KA_TOKEN", "from-env")
    monkeypatch.setenv("KA_TOKEN_FILE", str(tmp_path / "missing"))
    assert secret("KA_TOKEN") == ""
    monkeypatch.delenv("KA_UNSET", raising=False)
    assert secret("KA_UNSET") == ""
    assert secret("") == ""


def test_a_repository_secret_wins_over_the_sites_webhook_secret(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.PRKEEPALIVE_WEBHOOK_SECRET = "site"
    repo = Repository(full_name="acme/widgets", webhook_secret_ref="KA_HOOK")
    monkeypatch.delenv("KA_HOOK", raising=False)
    monkeypatch.delenv("KA_HOOK_FILE", raising=False)
    assert webhook_secret(repo) == "site"
    monkeypatch.setenv("KA_HOOK", "repo")
    assert webhook_secret(repo) == "repo"
    assert webhook_secret(None) == "site"


def test_the_policy_takes_the_repositorys_lists_and_the_defaults_for_the_rest() -> None:
    plain = Repository(full_name="acme/widgets", gate_workflow="")
    assert policy_for(plain) == Policy()
    tuned = Repository(
        full_name="acme/widgets",
        agent_aliases=["claude"],
        allowed_authors=["stranske"],
        automation_logins=["ka-bot"],
        gate_workflow="CI",
    )
    assert policy_for(tuned) == Policy(
        agent_aliases=("claude",),
        allowed_authors=("stranske",),
        automation_logins=("ka-bot",),
        gate_workflow="CI",
    )
