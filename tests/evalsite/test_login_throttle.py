"""Failed sign-ins are counted per account and per address; past the limit
sign-in is refused (429, a clear message) even with the right password,
until the lock expires or ``manage.py login_unlock`` lifts it."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db

LOCKED = (
    "Too many failed sign-ins for this account. Try again in 15 minutes, "
    "or ask an administrator to lift the lock."
)


@pytest.fixture(autouse=True)
def fresh_counts() -> None:
    cache.clear()


def sign_in(client: Client, username: str, password: str, **extra: Any) -> Any:
    return client.post(
        "/accounts/login/", {"username": username, "password": password}, **extra
    )


def test_thirty_wrong_passwords_then_the_right_one_is_refused(
    client: Client, owner: Any, log_lines: Any
) -> None:
    wrong = [sign_in(client, "alice", f"guess-{n}").status_code for n in range(30)]
    right = sign_in(client, "alice", "pw-alice")

    assert wrong == [200] * 5 + [429] * 25
    assert right.status_code == 429
    assert LOCKED in right.content.decode()
    assert "_auth_user_id" not in client.session
    assert log_lines("[Auth] login_locked") == [
        "[Auth] login_locked by=account address=127.0.0.1"
    ]
    assert log_lines("[Auth] login_refused")[-1] == (
        "[Auth] login_refused reason=locked by=account"
    )


def test_the_account_lock_ignores_case_and_spaces_of_the_username(
    client: Client, owner: Any
) -> None:
    for name in ("alice", "ALICE", " Alice", "alicE ", "aLice"):
        sign_in(client, name, "wrong")

    assert sign_in(client, "alice", "pw-alice").status_code == 429


def test_another_account_from_the_same_address_still_signs_in(
    client: Client, owner: Any, member: Any
) -> None:
    for _ in range(5):
        sign_in(client, "alice", "wrong")

    assert sign_in(client, "bob", "pw-bob").status_code == 302


def test_a_right_password_clears_the_account_count(client: Client, owner: Any) -> None:
    for _ in range(4):
        sign_in(client, "alice", "wrong")
    assert sign_in(client, "alice", "pw-alice").status_code == 302
    client.logout()
    for _ in range(4):
        sign_in(client, "alice", "wrong")

    assert sign_in(client, "alice", "pw-alice").status_code == 302


def test_one_address_trying_many_accounts_is_locked_out(
    client: Client, owner: Any, settings: Any
) -> None:
    settings.LOGIN_MAX_FAILURES_PER_ADDRESS = 3
    for name in ("x1", "x2", "x3"):
        sign_in(client, name, "wrong")

    refused = sign_in(client, "alice", "pw-alice")
    elsewhere = sign_in(Client(REMOTE_ADDR="10.0.0.9"), "alice", "pw-alice")

    assert refused.status_code == 429
    assert "for this address" in refused.content.decode()
    assert elsewhere.status_code == 302


def test_behind_a_proxy_the_address_is_the_last_forwarded_one(
    owner: Any, settings: Any
) -> None:
    settings.LOGIN_MAX_FAILURES_PER_ADDRESS = 2
    settings.LOGIN_CLIENT_ADDRESS_HEADER = "X-Forwarded-For"
    proxy = Client(REMOTE_ADDR="10.0.0.1")
    for name in ("x1", "x2"):
        sign_in(proxy, name, "wrong", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7")

    assert (
        sign_in(
            proxy, "alice", "pw-alice", HTTP_X_FORWARDED_FOR="203.0.113.7"
        ).status_code
        == 429
    )
    assert (
        sign_in(
            proxy, "alice", "pw-alice", HTTP_X_FORWARDED_FOR="203.0.113.8"
        ).status_code
        == 302
    )


def test_login_unlock_lifts_the_lock(client: Client, owner: Any) -> None:
    for _ in range(5):
        sign_in(client, "alice", "wrong")
    out = StringIO()

    call_command("login_unlock", "alice", stdout=out)

    assert out.getvalue() == "Lifted the sign-in lock of account 'alice'.\n"
    assert sign_in(client, "alice", "pw-alice").status_code == 302


def test_login_unlock_lifts_an_address_lock(
    client: Client, owner: Any, settings: Any
) -> None:
    settings.LOGIN_MAX_FAILURES_PER_ADDRESS = 2
    for name in ("x1", "x2"):
        sign_in(client, name, "wrong")
    out = StringIO()

    call_command("login_unlock", "--address", "127.0.0.1", stdout=out)

    assert out.getvalue() == "Lifted the sign-in lock of address 127.0.0.1.\n"
    assert sign_in(client, "alice", "pw-alice").status_code == 302


def test_login_unlock_without_a_target_is_an_error() -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="name a USERNAME, an --address, or both"):
        call_command("login_unlock")


def test_the_login_settings_are_documented() -> None:
    from pathlib import Path

    from django.conf import settings

    readme = (Path(settings.BASE_DIR) / "README.md").read_text()
    for row in (
        "| `LOGIN_MAX_FAILURES` | `5` |",
        "| `LOGIN_MAX_FAILURES_PER_ADDRESS` | `50` |",
        "| `LOGIN_LOCKOUT_S` | `900` |",
        "| `LOGIN_CLIENT_ADDRESS_HEADER` | unset |",
        "python manage.py login_unlock",
    ):
        assert row in readme
