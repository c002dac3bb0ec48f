"""The API schema and its docs page are public, as the README says, and any
valid key may read them too (``core.scopes.PUBLIC_PATHS``)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from core.scopes import ANY_KEY, PUBLIC_PATHS, SCOPES, required_scope
from tests.builders import agent_make, key_client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/"])
def test_the_api_description_answers_without_a_key(
    anon_client: APIClient, path: str
) -> None:
    assert anon_client.get(path).status_code == 200


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/"])
def test_a_key_of_any_scope_reads_the_api_description(
    owner: Any, scope: str, path: str
) -> None:
    key = agent_make(name=f"k-{scope}", owner=owner, scopes=(scope,)).api_key
    client = key_client(key)

    assert client.get(path).status_code == 200


def test_the_public_paths_are_what_the_readme_names() -> None:
    from pathlib import Path

    from django.conf import settings

    assert PUBLIC_PATHS == ("/api/schema/", "/api/docs/")
    assert {required_scope("GET", p) for p in PUBLIC_PATHS} == {ANY_KEY}
    readme = (Path(settings.BASE_DIR) / "README.md").read_text()
    assert "Both are public" in readme
