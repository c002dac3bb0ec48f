"""evals.services.access: who may move what the CI gate compares against
(a key with the scope, else a staff login; no user is the operator)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from core.errors import Forbidden
from evals.services.access import actor_label, key_name, require_gate_privilege

SCOPE = "baselines:write"


def person(*, staff: bool, authenticated: bool = True) -> Any:
    return SimpleNamespace(
        is_authenticated=authenticated,
        is_staff=staff,
        get_username=lambda: "ada",
    )


def key(*scopes: str) -> Any:
    return SimpleNamespace(name="ci-bot", scopes=scopes)


def test_the_actor_is_the_key_else_the_person_else_the_operator() -> None:
    assert actor_label(person(staff=True), key(SCOPE)) == "key:ci-bot"
    assert actor_label(person(staff=False), None) == "user:ada"
    assert actor_label(person(staff=False, authenticated=False), None) == "operator"
    assert actor_label(None, None) == "operator"
    assert key_name(None) == ""


@pytest.mark.parametrize(
    ("user", "with_key"),
    [
        (None, None),  # a command or the demo loader: the operator
        (person(staff=True), None),
        (person(staff=False), key(SCOPE)),
    ],
)
def test_the_operator_staff_and_a_key_with_the_scope_may(
    user: Any, with_key: Any, log_lines: Any
) -> None:
    require_gate_privilege(user=user, key=with_key, scope=SCOPE, action="snapshot")
    assert log_lines("[Auth]") == []


def test_a_key_decides_alone_and_never_borrows_its_owners_staff_status(
    log_lines: Any,
) -> None:
    with pytest.raises(Forbidden) as caught:
        require_gate_privilege(
            user=person(staff=True), key=key("stream"), scope=SCOPE, action="snapshot"
        )
    assert caught.value.message == (
        "snapshot needs an API key with the 'baselines:write' scope."
    )
    assert caught.value.details == {"scope": SCOPE}
    assert log_lines("[Auth]") == [
        "[Auth] refused action=snapshot by=key:ci-bot needs=baselines:write"
    ]


@pytest.mark.parametrize(
    ("user", "needs", "by"),
    [
        (
            person(staff=False),
            "a staff login or an API key with the 'baselines:write' scope",
            "user:ada",
        ),
        (person(staff=True, authenticated=False), "a staff login", "operator"),
    ],
)
def test_without_a_key_a_person_must_be_a_logged_in_staff_member(
    user: Any, needs: str, by: str, log_lines: Any
) -> None:
    with pytest.raises(Forbidden) as caught:
        require_gate_privilege(user=user, key=None, scope=SCOPE, action="snapshot")
    assert caught.value.message == f"snapshot needs {needs}."
    assert log_lines("[Auth]")[-1] == (
        f"[Auth] refused action=snapshot by={by} needs=baselines:write"
    )
