"""GET /api/search: answers, paging, filters, 400s naming the parameter,
and who reads what (nobody reads another owner's agents through search)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from core.scopes import STREAM
from tests.builders import agent_make, key_client
from tests.hostile import HOSTILE_STRINGS
from tests.search.search_support import thought_make, two_owners

URL = "/api/search"
pytestmark = pytest.mark.django_db


@pytest.fixture
def world(agent: Any, stranger: Any) -> dict[str, Any]:
    return two_owners(agent, stranger)


def _session(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _refs(response: Any) -> list[str]:
    assert response.status_code == 200, response.content
    return [hit["ref"] for hit in response.json()["results"]]


def test_route_name() -> None:
    assert reverse("search:api-search") == URL


def test_answer_shape(owner: Any, world: dict[str, Any]) -> None:
    thought = world["alpha_2"]
    response = _session(owner).get(URL, {"q": "lava"})
    assert response.status_code == 200
    assert response.json() == {
        "results": [
            {
                "kind": "thought",
                "ref": str(thought.pk),
                "title": "Second creeper spotted near <b>lava</b>",
                "snippet": "Second creeper spotted near &lt;b&gt;<mark>lava</mark>&lt;/b&gt;",
                "url": f"/stream/alpha/thoughts/{thought.pk}/",
                "agent": "alpha",
                "runId": "",
                "createdAt": "2026-02-03T12:02:00Z",
            }
        ],
        "nextCursor": None,
    }


def test_owner_and_member_see_their_agent_only(
    owner_client: Any, member: Any, owner: Any, world: dict[str, Any]
) -> None:
    alpha = [str(world["alpha_2"].pk), str(world["alpha_1"].pk)]
    assert _refs(_session(owner).get(URL, {"q": "creeper"})) == alpha
    assert _refs(_session(member).get(URL, {"q": "creeper"})) == alpha


def test_stranger_never_reads_another_owners_agent(
    stranger: Any, world: dict[str, Any]
) -> None:
    client = _session(stranger)
    assert _refs(client.get(URL, {"q": "creeper"})) == [str(world["beta_1"].pk)]
    assert _refs(client.get(URL, {"q": "oak"})) == []
    assert _refs(client.get(URL, {"q": "creeper", "agent": "alpha"})) == []


def test_staff_sees_every_agent(staff: Any, world: dict[str, Any]) -> None:
    assert len(_refs(_session(staff).get(URL, {"q": "creeper"}))) == 3


def test_a_key_reads_its_own_agent_only(api_key: str, world: dict[str, Any]) -> None:
    client = key_client(api_key)
    assert _refs(client.get(URL, {"q": "creeper"})) == [
        str(world["alpha_2"].pk),
        str(world["alpha_1"].pk),
    ]
    assert _refs(client.get(URL, {"q": "secret"})) == []
    assert _refs(client.get(URL, {"q": "creeper", "agent": "beta"})) == []


def test_a_key_without_the_search_scope_is_refused(
    owner: Any, world: dict[str, Any]
) -> None:
    created = agent_make(owner=owner, name="gamma", scopes=[STREAM])
    response = key_client(created.api_key).get(URL, {"q": "creeper"})
    assert response.status_code == 403


def test_anonymous_is_refused(world: dict[str, Any]) -> None:
    assert APIClient().get(URL, {"q": "creeper"}).status_code in (401, 403)


def test_keyset_paging_walks_every_hit_once(owner: Any, agent: Any) -> None:
    made = [thought_make(agent, f"zombie number {i}", minutes=i % 3) for i in range(7)]
    from search.services.indexer import index_pass

    index_pass()
    client = _session(owner)
    seen: list[str] = []
    params = {"q": "zombie", "limit": "3"}
    for _ in range(5):
        body = client.get(URL, params).json()
        seen.extend(hit["ref"] for hit in body["results"])
        if body["nextCursor"] is None:
            break
        params["cursor"] = body["nextCursor"]
    expected = sorted(made, key=lambda t: (t.created_at, t.pk), reverse=True)
    assert seen == [str(t.pk) for t in expected]


def test_filters_narrow_the_hits(owner: Any, agent: Any) -> None:
    from search.services.indexer import index_pass

    old = thought_make(agent, "skeleton one", minutes=0, type="observation")
    new = thought_make(agent, "skeleton two", minutes=30, grounding_passed=False)
    index_pass()
    client = _session(owner)
    assert _refs(
        client.get(URL, {"q": "skeleton", "since": "2026-02-03T12:10:00Z"})
    ) == [str(new.pk)]
    assert _refs(
        client.get(URL, {"q": "skeleton", "until": "2026-02-03T12:10:00Z"})
    ) == [str(old.pk)]
    assert _refs(client.get(URL, {"q": "skeleton", "flag": "ungrounded"})) == [
        str(new.pk)
    ]
    assert _refs(client.get(URL, {"q": "skeleton", "flag": "observation"})) == [
        str(old.pk)
    ]
    assert _refs(client.get(URL, {"q": "skeleton", "kind": "keepalive_line"})) == []
    assert _refs(client.get(URL, {"q": "skeleton", "eligible": "false"})) == [
        str(new.pk),
        str(old.pk),
    ]
    assert _refs(client.get(URL, {"q": "skeleton", "agent": "alpha"})) == [
        str(new.pk),
        str(old.pk),
    ]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "q"),
        ({"q": ""}, "q"),
        ({"q": '* - OR | ""'}, "q"),
        ({"q": "-creeper"}, "q"),
        ({"q": "a" * 5000}, "q"),
        ({"q": "creeper", "kind": "nope"}, "kind"),
        ({"q": "creeper", "cursor": "bogus!"}, "cursor"),
        ({"q": "creeper", "since": "soon"}, "since"),
        ({"q": "creeper", "limit": "1000"}, "limit"),
        ({"q": "creeper", "score_min": "3"}, "score"),
    ],
)
def test_bad_input_is_a_400_naming_the_parameter(
    owner: Any, params: dict[str, str], field: str
) -> None:
    response = _session(owner).get(URL, params)
    assert response.status_code == 400
    body = response.json()
    assert field in str(body)


@pytest.mark.parametrize(
    "q",
    [
        "creeper\x00zombie",
        '"unbalanced',
        'a"b"c"',
        "((((",
        "AND OR NOT NEAR",
        "*" * 300,
        "'; DROP TABLE search_searchdocument; --",
        "x" * 499,
        "NEAR(a b)",
        "^creeper",
        "col:creeper",
        "a* b* c* d* e* f* g* h*",
    ],
)
def test_hostile_queries_give_a_400_or_results_never_a_500(
    owner: Any, world: dict[str, Any], q: str
) -> None:
    response = _session(owner).get(URL, {"q": q})
    assert response.status_code in (200, 400), response.content


@pytest.mark.parametrize("raw", ["%ED%A0%80", "%FF%FE", "%00", "%C0%AF"])
def test_undecodable_bytes_in_q_give_a_400_or_results(owner: Any, raw: str) -> None:
    response = _session(owner).get(f"{URL}?q=creeper{raw}")
    assert response.status_code in (200, 400), response.content


@pytest.mark.parametrize(
    "param", ["q", "agent", "run", "flag", "since", "cursor", "limit"]
)
@pytest.mark.parametrize(
    ("label", "value"), HOSTILE_STRINGS, ids=[s[0] for s in HOSTILE_STRINGS]
)
def test_the_hostile_corpus_in_any_parameter_gives_a_400_or_results(
    owner: Any, param: str, label: str, value: str
) -> None:
    encoded = quote(value, safe="", errors="surrogatepass")
    query = f"q=creeper&{param}={encoded}" if param != "q" else f"q={encoded}"
    response = _session(owner).get(f"{URL}?{query}")
    assert response.status_code in (200, 400), (label, response.content[:300])
