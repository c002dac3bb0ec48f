"""The reviews REST API: exact answers, edits with history, keyset paging,
400s naming the field with nothing stored, scopes and who scores what."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.services import api_key_create
from core.scopes import REVIEWS, SCOPES, STREAM
from reviews.api import cursor_decode, cursor_encode
from reviews.models import Score, ScoreRevision
from reviews.services.configs import config_attach
from tests.builders import agent_make, key_client, thought_actionable
from tests.reviews.reviews_support import configs_make, run_with_cases

pytestmark = pytest.mark.django_db

SCORES = "/api/reviews/scores"


def session(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


@pytest.fixture
def world(owner: Any, member: Any, stranger: Any) -> dict[str, Any]:
    configs = configs_make()
    run_with_cases("run-1", {"c00": True, "c01": False, "c02": True})
    config_attach(name="quality", benchmark_id="suite-a")
    mine = agent_make(name="mine", owner=owner, scopes=[REVIEWS])
    mine.agent.members.add(member)
    theirs = agent_make(name="theirs", owner=stranger, scopes=[REVIEWS])
    return {
        **configs,
        "mine": mine,
        "theirs": theirs,
        "my_thought": thought_actionable(mine.agent),
        "their_thought": thought_actionable(theirs.agent),
    }


def post(client: APIClient, **body: Any) -> Any:
    return client.post(SCORES, body, format="json")


def scenario(
    value: Any, config: str = "quality", case: str = "c00", **extra: Any
) -> dict:
    return {
        "config": config,
        "kind": "scenario_result",
        "ref": f"run-1/{case}",
        "value": value,
        **extra,
    }


def test_configs_list_the_current_versions_with_their_benchmarks(
    world: dict, owner: Any
) -> None:
    answer = session(owner).get("/api/reviews/configs")
    assert answer.status_code == 200
    by_name = {c["name"]: c for c in answer.json()["results"]}
    assert list(by_name) == ["grounded", "quality", "verdict"]
    assert by_name["quality"] == {
        "name": "quality",
        "version": 1,
        "kind": "numeric",
        "minValue": 1.0,
        "maxValue": 5.0,
        "labels": [],
        "description": "",
        "rubric": "",
        "benchmarks": ["suite-a"],
    }
    assert by_name["verdict"]["labels"] == ["good", "bad", "unclear"]


def test_posting_a_score_answers_201_with_the_score(world: dict, owner: Any) -> None:
    answer = post(session(owner), **scenario(4, comment="fine"))
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    score = Score.objects.get()
    assert body == {
        "id": score.pk,
        "config": "quality",
        "configVersion": 1,
        "kind": "scenario_result",
        "ref": "run-1/c00",
        "runId": "run-1",
        "caseId": "c00",
        "value": 4.0,
        "comment": "fine",
        "source": "api",
        "givenBy": {"user": "alice", "key": None},
        "createdAt": score.created_at.isoformat(),
        "updatedAt": score.updated_at.isoformat(),
    }


def test_a_second_post_by_the_same_giver_edits_and_keeps_history(
    world: dict, owner: Any, member: Any
) -> None:
    client = session(owner)
    first = post(client, **scenario("good", config="verdict"))
    second = post(client, **scenario("bad", config="verdict", comment="looked again"))
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["id"] == first.json()["id"]
    assert second.json()["value"] == "bad"
    detail = client.get(f"{SCORES}/{first.json()['id']}").json()
    assert detail["value"] == "bad"
    assert [(h["value"], h["comment"], h["changedBy"]) for h in detail["history"]] == [
        ("good", "", {"user": "alice", "key": None})
    ]
    # Someone else's score of the same subject is another score.
    assert (
        post(session(member), **scenario("good", config="verdict")).status_code == 201
    )
    assert Score.objects.count() == 2


def test_a_key_scores_its_own_agents_subject_as_the_key(world: dict) -> None:
    key = key_client(world["mine"].api_key)
    ref = str(world["my_thought"].pk)
    answer = post(key, config="grounded", kind="thought", ref=ref, value=True)
    assert answer.status_code == 201, answer.json()
    assert answer.json()["givenBy"] == {"user": None, "key": "mine"}
    assert answer.json()["value"] is True
    again = post(key, config="grounded", kind="thought", ref=ref, value=False)
    assert again.status_code == 200
    assert ScoreRevision.objects.get().changed_by_key.name == "mine"


def test_a_key_may_not_score_another_agents_subject(world: dict) -> None:
    key = key_client(world["mine"].api_key)
    answer = post(
        key,
        config="grounded",
        kind="thought",
        ref=str(world["their_thought"].pk),
        value=True,
    )
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "forbidden"
    # A subject of no agent (an eval run's scenario) is not the agent's either.
    assert post(key, **scenario(3)).status_code == 403
    assert not Score.objects.exists()


def test_a_key_no_agent_holds_scores_subjects_of_no_agent(
    world: dict, owner: Any
) -> None:
    judge = api_key_create(name="judge", owner=owner, scopes=[REVIEWS])
    client = key_client(judge.key)
    assert post(client, **scenario(5)).status_code == 201
    thought = str(world["my_thought"].pk)
    assert (
        post(
            client, config="grounded", kind="thought", ref=thought, value=True
        ).status_code
        == 403
    )
    assert [s["givenBy"]["key"] for s in client.get(SCORES).json()["results"]] == [
        "judge"
    ]


def test_a_person_may_not_score_a_thought_of_an_agent_they_do_not_see(
    world: dict, owner: Any, member: Any
) -> None:
    their = str(world["their_thought"].pk)
    assert (
        post(
            session(owner), config="grounded", kind="thought", ref=their, value=True
        ).status_code
        == 403
    )
    mine = str(world["my_thought"].pk)
    assert (
        post(
            session(member), config="grounded", kind="thought", ref=mine, value=True
        ).status_code
        == 201
    )


@pytest.mark.parametrize(
    ("body", "field", "reason"),
    [
        (scenario(9), "value", "between 1 and 5"),
        (scenario(0.5), "value", "between 1 and 5"),
        (scenario("4"), "value", "must be a number"),
        (scenario(True), "value", "must be a number"),
        (scenario("meh", config="verdict"), "value", "one of: good, bad, unclear"),
        (scenario(1, config="grounded"), "value", "true or false"),
        (scenario(3, config="stars"), "config", "no score config 'stars'"),
        (scenario(3, config=7), "config", "config's name"),
        (scenario(3, case="ghost"), "ref", "no scenario result 'run-1/ghost'"),
        ({**scenario(3), "kind": "essay"}, "kind", "one of scenario_result"),
        ({**scenario(3), "ref": 12}, "ref", "1 to 420"),
        (scenario(3, comment=["x"]), "comment", "at most 10000"),
        (
            {"config": "quality", "kind": "scenario_result", "ref": "run-1/c00"},
            "value",
            "needed",
        ),
    ],
)
def test_a_bad_score_is_a_400_naming_the_field_and_nothing_is_stored(
    world: dict, owner: Any, body: dict, field: str, reason: str
) -> None:
    answer = post(session(owner), **body)
    assert answer.status_code == 400, answer.json()
    fields = answer.json()["error"]["fields"]
    assert [f["path"] for f in fields] == [f"$.{field}"]
    assert reason in fields[0]["message"]
    assert not Score.objects.exists()


def test_a_body_that_is_not_an_object_is_a_400(world: dict, owner: Any) -> None:
    answer = session(owner).post(SCORES, [1, 2], format="json")
    assert answer.status_code == 400
    assert answer.json()["error"]["fields"][0]["path"] == "$"


def test_the_list_filters_and_pages_by_a_keyset_cursor(world: dict, owner: Any) -> None:
    client = session(owner)
    for case in ("c00", "c01", "c02"):
        post(client, **scenario(3, case=case))
    post(client, **scenario("good", config="verdict"))
    first = client.get(SCORES, {"limit": 2}).json()
    assert len(first["results"]) == 2 and first["nextCursor"]
    rest = client.get(SCORES, {"limit": 2, "cursor": first["nextCursor"]}).json()
    assert rest["nextCursor"] is None
    ids = [s["id"] for s in first["results"] + rest["results"]]
    assert ids == sorted(Score.objects.values_list("pk", flat=True), reverse=True)
    assert [
        s["ref"] for s in client.get(SCORES, {"config": "verdict"}).json()["results"]
    ] == ["run-1/c00"]
    only = client.get(SCORES, {"kind": "scenario_result", "ref": "run-1/c01"}).json()
    assert [s["caseId"] for s in only["results"]] == ["c01"]
    assert len(client.get(SCORES, {"run_id": "run-1"}).json()["results"]) == 4
    assert client.get(SCORES, {"run_id": "run-2"}).json()["results"] == []


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"kind": "essay"}, "?kind"),
        ({"limit": "0"}, "?limit"),
        ({"limit": "x"}, "?limit"),
        ({"cursor": "not-a-cursor"}, "?cursor"),
        ({"cursor": "!!"}, "?cursor"),
        ({"config": "x" * 65}, "?config"),
    ],
)
def test_bad_list_parameters_are_a_400_naming_them(
    world: dict, owner: Any, params: dict, field: str
) -> None:
    answer = session(owner).get(SCORES, params)
    assert answer.status_code == 400
    assert [f["path"] for f in answer.json()["error"]["fields"]] == [field]


def test_the_cursor_round_trips_and_refuses_anything_else() -> None:
    assert cursor_decode(cursor_encode(42)) == 42
    for text in ("", "czA", "eDQy", "a" * 41):
        with pytest.raises(ValueError, match="not a cursor"):
            cursor_decode(text)


def test_scores_are_read_only_where_the_reader_may_see_the_subject(
    world: dict, owner: Any, stranger: Any, staff: Any
) -> None:
    their_ref = str(world["their_thought"].pk)
    made = post(
        session(stranger), config="grounded", kind="thought", ref=their_ref, value=True
    )
    assert made.status_code == 201
    pk = made.json()["id"]
    assert session(owner).get(f"{SCORES}/{pk}").status_code == 404
    assert session(owner).get(SCORES).json()["results"] == []
    assert key_client(world["mine"].api_key).get(f"{SCORES}/{pk}").status_code == 404
    assert key_client(world["theirs"].api_key).get(f"{SCORES}/{pk}").status_code == 200
    assert session(staff).get(f"{SCORES}/{pk}").status_code == 200
    assert session(owner).get(f"{SCORES}/999999").status_code == 404


def test_a_key_without_the_reviews_scope_is_refused(world: dict, owner: Any) -> None:
    streamer = agent_make(name="streamer", owner=owner, scopes=[STREAM]).api_key
    wide = agent_make(name="wide", owner=owner, scopes=SCOPES).api_key
    for path in ("/api/reviews/configs", SCORES, f"{SCORES}/1"):
        refused = key_client(streamer).get(path)
        assert refused.status_code == 403, path
        assert refused.json()["error"]["message"] == (
            f"This API key may not GET {path}: it needs the 'reviews' scope."
        )
        assert key_client(wide).get(path).status_code in (200, 404)
    assert post(key_client(streamer), **scenario(3)).status_code == 403
    assert not Score.objects.exists()


def test_anonymous_callers_are_refused(world: dict) -> None:
    for path in ("/api/reviews/configs", SCORES, f"{SCORES}/1"):
        assert APIClient().get(path).status_code in (401, 403), path
    assert APIClient().post(SCORES, scenario(3), format="json").status_code in (
        401,
        403,
    )


def test_lists_read_a_fixed_number_of_queries(
    world: dict, owner: Any, django_assert_max_num_queries: Any
) -> None:
    client = session(owner)
    for case in ("c00", "c01", "c02"):
        post(client, **scenario(3, case=case))
        post(client, **scenario("good", config="verdict", case=case))
    with django_assert_max_num_queries(6):
        assert len(client.get(SCORES).json()["results"]) == 6
    with django_assert_max_num_queries(5):
        assert len(client.get("/api/reviews/configs").json()["results"]) == 3
