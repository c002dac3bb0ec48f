"""The stream contract (the stream contract SC-*, MV-*, KA-A7/A8; the agency contract §4, §6)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.test import override_settings
from django.utils import timezone

from stream.core.goals import accepted_actions_text
from stream.models import Thought
from tests.api_errors import error_fields
from tests.builders import agent_make

pytestmark = pytest.mark.django_db

API = "/api/cognitive-stream/"
GOAL = "Two cows graze nearby. [GOAL: collect oak_log 4]"


def actionable(client: Any, limit: int = 10) -> Any:
    return client.get(f"{API}actionable?limit={limit}")


# --- SC-B1 -------------------------------------------------------------------


def test_sc_b1_percepts_only_stream_has_empty_actionable_feed(
    perceive: Any, agent_client: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive(calm_facts)
    calm_facts["bot"]["position"]["x"] = 99
    perceive(calm_facts)
    response = actionable(agent_client)
    assert response.status_code == 200
    assert response.json() == {"count": 0, "thoughts": []}
    assert log_lines("[CognitiveStream] /actionable") == [
        "[CognitiveStream] /actionable: returned=0 queue_size=2 filtered_out=2",
        "[CognitiveStream] /actionable: returned=0 opt_in_only=true",
    ]


def test_sc_b1_only_convert_eligible_true_newest_first(
    perceive: Any, publish: Any, agent_client: Any, calm_facts: Any, agent: Any
) -> None:
    perceive(calm_facts)
    first = publish(GOAL).json()
    publish("The cows keep grazing; nothing changes.")
    second = publish("A cow moved. [GOAL: gather cow 1]").json()
    # A thought whose convertEligible is missing (NULL) is not actionable.
    Thought.objects.create(
        agent=agent,
        type="legacy",
        content="x",
        content_hash="x",
        convert_eligible=None,
        eligibility_reason="missing",
        source="agent",
        created_at=timezone.now(),
    )
    body = actionable(agent_client).json()
    assert [t["id"] for t in body["thoughts"]] == [second["id"], first["id"]]
    assert all(t["convertEligible"] is True for t in body["thoughts"])
    assert body["count"] == 2


def test_sc_b1_limit_is_validated(agent_client: Any) -> None:
    for bad in ("0", "101", "ten"):
        response = agent_client.get(f"{API}actionable?limit={bad}")
        assert response.status_code == 400
        assert list(error_fields(response)) == ["?limit"]


# --- SC-B2 / MV-E3 -----------------------------------------------------------


def test_sc_b2_ack_logs_acked_over_requested(
    perceive: Any, publish: Any, agent_client: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive(calm_facts)
    ids = [
        publish(GOAL).json()["id"],
        publish("Quiet. [GOAL: gather cow 1]").json()["id"],
    ]
    response = agent_client.post(f"{API}ack", {"thoughtIds": ids}, format="json")
    assert response.status_code == 200
    assert response.json() == {
        "requested": 2,
        "acked": 2,
        "newlyAcked": 2,
        "alreadyProcessed": [],
        "unknown": [],
    }
    assert log_lines("[CognitiveStream] Acked") == [
        "[CognitiveStream] Acked 2/2 thoughts"
    ]


def test_mv_e3_acked_thoughts_never_reappear(
    perceive: Any, publish: Any, agent_client: Any, calm_facts: Any
) -> None:
    perceive(calm_facts)
    publish(GOAL)
    ids = [t["id"] for t in actionable(agent_client).json()["thoughts"]]
    assert len(ids) == 1
    agent_client.post(f"{API}ack", {"thoughtIds": ids}, format="json")
    assert actionable(agent_client).json()["count"] == 0


def test_ack_is_idempotent_and_reports_unknown_and_foreign_ids(
    perceive: Any, publish: Any, agent_client: Any, calm_facts: Any, owner: Any
) -> None:
    from stream.services.thoughts import ThoughtInput, thoughts_publish

    other = agent_make(name="other", owner=owner).agent
    (foreign,) = thoughts_publish(agent=other, items=[ThoughtInput(content="hi")])
    perceive(calm_facts)
    mine = publish(GOAL).json()["id"]
    agent_client.post(f"{API}ack", {"thoughtIds": [mine]}, format="json")
    body = agent_client.post(
        f"{API}ack", {"thoughtIds": [mine, foreign.pk, 987654]}, format="json"
    ).json()
    assert body == {
        "requested": 3,
        "acked": 1,
        "newlyAcked": 0,
        "alreadyProcessed": [mine],
        "unknown": [foreign.pk, 987654],
    }
    foreign.refresh_from_db()
    assert foreign.processed is False


@pytest.mark.parametrize(
    "body",
    [
        {"thoughtIds": []},
        {"thoughtIds": ["a"]},
        {"thoughtIds": 5},
        {},
        {"thoughtIds": [0]},
    ],
)
def test_ack_rejects_bad_input(agent_client: Any, body: Any) -> None:
    response = agent_client.post(f"{API}ack", body, format="json")
    assert response.status_code == 400
    fields = error_fields(response)
    assert [f for f in fields if f.startswith("$.thoughtIds")], fields


# --- SC-B3 / MV-E2 -----------------------------------------------------------


def test_sc_b3_published_thoughts_start_unprocessed(
    publish: Any, log_lines: Any
) -> None:
    body = publish("Nothing new.", processed=True, processedAt="2020-01-01").json()
    assert body["processed"] is False
    assert body["processedAt"] is None
    assert log_lines("[Cognition]") == ["[Cognition] thought_published processed=false"]


def test_mv_e2_recent_thoughts_default_to_unprocessed(
    perceive: Any, publish: Any, agent_client: Any, calm_facts: Any
) -> None:
    perceive(calm_facts)
    publish("A quiet day.")
    publish(GOAL)
    body = agent_client.get(f"{API}recent?limit=5").json()
    assert body["count"] == 3
    assert [t["processed"] for t in body["thoughts"]] == [False, False, False]


# --- SC-B4 -------------------------------------------------------------------


@override_settings(STREAM_QUEUE_HARD_CAP=10)
def test_sc_b4_prune_enforces_cap_and_keeps_actionable(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    from stream.services.thoughts import (
        ThoughtInput,
        percept_record,
        thoughts_publish,
    )

    percept_record(agent=agent, document={"facts": calm_facts})
    thoughts_publish(
        agent=agent,
        items=[ThoughtInput(content=f"Observation {i}.") for i in range(20)],
    )
    # Over the cap, the queue is pruned to 95% of it (at least one below).
    assert Thought.objects.filter(agent=agent).count() == 9
    thoughts_publish(
        agent=agent,
        items=[
            ThoughtInput(content=f"Logs {i}. [GOAL: collect oak_log {i + 1}]")
            for i in range(3)
        ],
    )
    assert Thought.objects.filter(agent=agent).count() == 9
    assert Thought.objects.filter(agent=agent, convert_eligible=True).count() == 3
    assert log_lines("[CognitiveStream] prune") == [
        "[CognitiveStream] prune before=21 after=9 dropped=12",
        "[CognitiveStream] prune before=12 after=9 dropped=3",
    ]


# Slow by design: 6,000 thoughts in 12 batches against a cap of 500.
@override_settings(STREAM_QUEUE_HARD_CAP=500)
def test_sc_b4_batch_flood_never_passes_the_cap(agent_client: Any, agent: Any) -> None:
    """12 batches of 500 (6,000 thoughts) against a cap of 500: after every
    batch the queue holds at most the cap, whatever the batch's last id."""
    sizes = []
    for batch in range(12):
        body = {
            "thoughts": [{"content": f"Percept flood {batch}-{i}."} for i in range(500)]
        }
        response = agent_client.post(f"{API}thoughts", body, format="json")
        assert response.status_code == 201
        sizes.append(Thought.objects.filter(agent=agent).count())
    assert max(sizes) <= 500
    assert sizes[-1] == 475  # pruned to 95% of the cap, so not on every insert


@override_settings(STREAM_QUEUE_HARD_CAP=20)
def test_sc_b4_every_publish_path_holds_the_cap(
    agent: Any, calm_facts: Any, perceive: Any, publish: Any
) -> None:
    from datetime import timedelta

    from stream.services.drive_tick import drive_tick_from_latest
    from stream.services.keepalive import keepalive_tick

    t0 = timezone.now()
    for i in range(30):
        calm_facts["bot"]["position"]["x"] = i
        assert perceive(calm_facts).status_code == 201
        assert publish(f"Single thought {i}.").status_code == 201
    assert Thought.objects.filter(agent=agent).count() <= 20
    calm_facts["bot"]["inventorySummary"] = []
    perceive(calm_facts)
    assert drive_tick_from_latest(agent=agent, game_mode="survival", now=t0).fired
    assert Thought.objects.filter(agent=agent).count() <= 20
    assert keepalive_tick(agent_id=agent.pk, now=t0 + timedelta(seconds=1)).ran
    assert Thought.objects.filter(agent=agent).count() <= 20


def test_sc_b4_prune_drops_by_age(agent: Any, calm_facts: Any) -> None:
    from datetime import timedelta

    from stream.services.retention import stream_prune
    from stream.services.thoughts import (
        ThoughtInput,
        percept_record,
        thoughts_publish,
    )

    t0 = timezone.now()
    percept_record(agent=agent, document={"facts": calm_facts}, now=t0)
    (plain,) = thoughts_publish(
        agent=agent, items=[ThoughtInput(content="Calm.")], now=t0
    )
    (goal,) = thoughts_publish(agent=agent, items=[ThoughtInput(content=GOAL)], now=t0)
    stream_prune(agent=agent, now=t0 + timedelta(minutes=11))
    assert set(Thought.objects.values_list("pk", flat=True)) == {goal.pk}
    stream_prune(agent=agent, now=t0 + timedelta(minutes=31))
    assert not Thought.objects.exists()


# Slow by design: 200 percepts through the API against a cap of 50.
@override_settings(STREAM_QUEUE_HARD_CAP=50)
def test_sc_b4_queue_stays_bounded_under_percept_flood(
    perceive: Any, calm_facts: Any, agent: Any
) -> None:
    for i in range(200):
        calm_facts["bot"]["position"]["x"] = i
        assert perceive(calm_facts).status_code == 201
        assert Thought.objects.filter(agent=agent).count() <= 50


# --- KA-A7 saliency dedup ------------------------------------------------------


def test_ka_a7_identical_awareness_within_window_is_suppressed(
    perceive: Any, calm_facts: Any, log_lines: Any, agent: Any
) -> None:
    first = perceive(calm_facts).json()
    second = perceive(calm_facts).json()
    assert first["suppressed"] is False and second["suppressed"] is True
    assert second["thought"] is None
    assert log_lines("[Saliency]") == [
        "[Saliency] awareness_suppressed reason=dedup window_ms=30000 "
        f"content_hash={first['contentHash']}"
    ]
    assert (
        Thought.objects.filter(agent=agent, type="environmental_awareness").count() == 1
    )


def test_ka_a7_identical_awareness_after_window_is_published(
    agent: Any, calm_facts: Any
) -> None:
    from datetime import timedelta

    from stream.services.thoughts import percept_record

    t0 = timezone.now()
    assert percept_record(agent=agent, document={"facts": calm_facts}, now=t0).thought
    later = t0 + timedelta(seconds=31)
    assert percept_record(
        agent=agent, document={"facts": calm_facts}, now=later
    ).thought


# --- content dedup (the agency contract §4.1) --------------------------------------------


def test_content_dedup_records_low_novelty_never_eligible(
    perceive: Any, publish: Any, calm_facts: Any, agent: Any
) -> None:
    perceive(calm_facts)
    assert publish(GOAL).json()["convertEligible"] is True
    again = publish(GOAL).json()
    assert again["novelty"] == "low"
    assert again["convertEligible"] is False
    assert again["eligibilityReason"] == "low_novelty"
    assert again["metadata"]["fallback"] is True


def test_content_dedup_broadcasts_one_in_five_without_goal(
    publish: Any, agent_client: Any, agent: Any
) -> None:
    publish("The sky is grey.")
    for _ in range(10):
        publish("The sky is grey.")
    low = Thought.objects.filter(agent=agent, novelty="low")
    assert low.count() == 10
    assert low.filter(broadcast=True).count() == 2
    assert all(t.metadata.get("fallback") for t in low.filter(broadcast=True))
    counters = agent_client.get(f"{API}counters").json()
    assert counters["contentSuppressions"] == 10
    assert counters["lowNoveltyRecorded"] == 10
    assert counters["lowNoveltyBroadcast"] == 2


# --- KA-A8 / the agency contract §6.1 -------------------------------------------------------


def test_ka_a8_convert_eligible_in_body_is_ignored_by_default(
    publish: Any, log_lines: Any
) -> None:
    body = publish("Nothing to do.", convertEligible=True, goalKey="x:y").json()
    assert body["convertEligible"] is False
    assert body["metadata"]["goalKey"] is None
    assert body["ignoredFields"] == ["convertEligible", "goalKey"]
    assert log_lines("[Cognition] convertEligible") == [
        "[Cognition] convertEligible=true requires extractedGoal+grounding_pass "
        f"id={body['id']}"
    ]


def test_ka_a8_ignored_claim_on_a_grounded_goal_logs_no_refusal(
    perceive: Any, publish: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive(calm_facts)
    body = publish(GOAL, convertEligible=True).json()
    assert body["convertEligible"] is True  # the pipeline's own decision
    assert body["ignoredFields"] == ["convertEligible"]
    assert log_lines("[Cognition] convertEligible") == []


def test_ka_a8_batch_lists_ignored_fields_per_thought(
    agent_client: Any, log_lines: Any
) -> None:
    body = agent_client.post(
        f"{API}thoughts",
        {
            "thoughts": [
                {"content": "One.", "convertEligible": True},
                {"content": "Two."},
            ]
        },
        format="json",
    ).json()
    first, second = body["thoughts"]
    assert first["ignoredFields"] == ["convertEligible"]
    assert "ignoredFields" not in second
    assert log_lines("[Cognition] convertEligible") == [
        "[Cognition] convertEligible=true requires extractedGoal+grounding_pass "
        f"id={first['id']}"
    ]


@pytest.mark.parametrize(
    "reserved", ["environmental_awareness", "keepalive", "drive_tick"]
)
def test_reserved_thought_types_are_refused(
    perceive: Any,
    publish: Any,
    agent_client: Any,
    calm_facts: Any,
    agent: Any,
    reserved: str,
) -> None:
    """A client cannot pass its text off as the service's own thoughts."""
    perceive(calm_facts)
    before = Thought.objects.filter(agent=agent).count()
    response = publish(GOAL, type=reserved)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert list(error_fields(response)) == ["$.type"]
    batch = agent_client.post(
        f"{API}thoughts",
        {"thoughts": [{"content": "Fine."}, {"content": GOAL, "type": reserved}]},
        format="json",
    )
    assert batch.status_code == 400
    assert list(error_fields(batch)) == ["$.thoughts[1].type"]
    assert Thought.objects.filter(agent=agent).count() == before
    assert actionable(agent_client).json()["count"] == 0


def test_reserved_types_are_refused_by_the_service_too(agent: Any) -> None:
    from core.errors import CoreError
    from stream.services.thoughts import ThoughtInput, thoughts_publish

    with pytest.raises(CoreError) as refused:
        thoughts_publish(
            agent=agent, items=[ThoughtInput(content="Hi.", type="keepalive")]
        )
    assert refused.value.code == "reserved_type"
    assert not Thought.objects.filter(agent=agent).exists()


@override_settings(ALLOW_DEV_THOUGHT_INJECTION=True, DEBUG=True)
def test_ka_a8_injected_true_without_grounded_goal_is_refused(
    publish: Any, log_lines: Any
) -> None:
    body = publish("Nothing to do.", convertEligible=True).json()
    assert body["convertEligible"] is False
    assert body["eligibilityReason"] == "refused:requires_extractedGoal+grounding_pass"
    assert log_lines("[Cognition] convertEligible") == [
        f"[Cognition] convertEligible=true requires extractedGoal+grounding_pass id={body['id']}"
    ]


@override_settings(ALLOW_DEV_THOUGHT_INJECTION=True, DEBUG=True)
def test_dev_injection_can_turn_a_grounded_goal_off(
    perceive: Any, publish: Any, calm_facts: Any
) -> None:
    perceive(calm_facts)
    assert publish(GOAL, convertEligible=False).json()["convertEligible"] is False


def test_ka_a8_database_refuses_eligible_without_grounded_goal(agent: Any) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Thought.objects.create(
            agent=agent,
            type="x",
            content="x",
            content_hash="x",
            convert_eligible=True,
            eligibility_reason="forged",
            source="agent",
            created_at=timezone.now(),
        )


def test_empty_goal_key_never_stored(agent: Any) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Thought.objects.create(
            agent=agent,
            type="x",
            content="x",
            content_hash="x",
            goal_key="",
            eligibility_reason="x",
            source="agent",
            created_at=timezone.now(),
        )


@override_settings(ALLOW_DEV_THOUGHT_INJECTION=True, DEBUG=False)
def test_injection_flag_without_debug_fails_system_check() -> None:
    from django.core.management.base import SystemCheckError

    with pytest.raises(SystemCheckError, match="stream.E001"):
        call_command("check")


# --- grounding against the latest percept ------------------------------------------


def test_goal_on_absent_item_is_not_eligible(
    perceive: Any, publish: Any, calm_facts: Any
) -> None:
    perceive(calm_facts)
    body = publish("Diamonds would help. [GOAL: collect diamond 3]").json()
    assert body["convertEligible"] is False
    assert body["metadata"]["grounding"]["pass"] is False
    assert body["eligibilityReason"].startswith("grounding_fail:")


def test_goal_without_any_percept_is_not_eligible(publish: Any) -> None:
    body = publish(GOAL).json()
    assert body["convertEligible"] is False
    assert body["eligibilityReason"] == "grounding_fail:no_frame"


# --- bad input ---------------------------------------------------------------------


def _nothing_stored(agent: Any) -> None:
    assert not Thought.objects.filter(agent=agent).exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"content": 5}, "content"),
        ({}, "content"),
        ({"content": "x", "type": "Bad Type!"}, "type"),
        ({"content": "x", "metadata": "nope"}, "metadata"),
        ({"content": "x" * 20001}, "content"),
        ({"thoughts": []}, "thoughts"),
        ({"thoughts": [{"content": 1}]}, "thoughts[0].content"),
    ],
)
def test_bad_thought_bodies_are_400_with_field_and_nothing_stored(
    agent_client: Any, agent: Any, body: Any, field: str
) -> None:
    response = agent_client.post(f"{API}thoughts", body, format="json")
    assert response.status_code == 400
    assert f"$.{field}" in error_fields(response)
    _nothing_stored(agent)


def test_malformed_json_is_400_nothing_stored(agent_client: Any, agent: Any) -> None:
    response = agent_client.post(
        f"{API}thoughts", '{"content": "x"', content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "parse_error"
    _nothing_stored(agent)


def test_deep_json_is_400_nothing_stored(agent_client: Any, agent: Any) -> None:
    deep = '{"content": "x", "metadata": ' + '{"a": ' * 50 + "1" + "}" * 50 + "}"
    response = agent_client.post(
        f"{API}thoughts", deep, content_type="application/json"
    )
    assert response.status_code == 400
    _nothing_stored(agent)


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=2048)
def test_oversized_body_is_413_nothing_stored(agent_client: Any, agent: Any) -> None:
    response = agent_client.post(
        f"{API}thoughts", {"content": "y" * 5000}, format="json"
    )
    assert response.status_code == 413
    _nothing_stored(agent)


def test_invalid_percept_lists_every_problem_and_stores_nothing(
    agent_client: Any, agent: Any, calm_facts: Any
) -> None:
    calm_facts["bot"]["health"] = "full"
    calm_facts["world"]["nearbyEntities"][0]["colour"] = "brown"
    response = agent_client.post(f"{API}percepts", {"facts": calm_facts}, format="json")
    assert response.status_code == 400
    fields = error_fields(response)
    assert "$.facts.bot.health" in fields
    assert "$.facts.world.nearbyEntities[0].colour" in fields
    assert not agent.snapshots.exists()
    _nothing_stored(agent)


def test_batch_publish_is_all_or_nothing(agent_client: Any, agent: Any) -> None:
    ok = {"thoughts": [{"content": "one"}, {"content": "two"}]}
    response = agent_client.post(f"{API}thoughts", ok, format="json")
    assert response.status_code == 201
    assert response.json()["count"] == 2
    bad = {"thoughts": [{"content": "three"}, {"content": None}]}
    assert agent_client.post(f"{API}thoughts", bad, format="json").status_code == 400
    assert Thought.objects.filter(agent=agent).count() == 2


def test_stream_endpoints_need_an_agent_key(
    owner_client: Any, anon_client: Any
) -> None:
    assert owner_client.get(f"{API}recent").status_code == 403
    assert anon_client.get(f"{API}recent").status_code in (401, 403)
    assert json.loads(owner_client.get(f"{API}recent").content)["error"]["code"]


# --- counters (the agency contract §5) ---------------------------------------------------------


def test_counters_are_exposed_and_logged(
    perceive: Any,
    publish: Any,
    agent_client: Any,
    agent: Any,
    calm_facts: Any,
    log_lines: Any,
) -> None:
    from stream.services.counters import counters_log_all

    perceive(calm_facts)
    publish(GOAL + "\nINTENT: gather")
    body = agent_client.get(f"{API}counters").json()
    assert (
        body["llmCalls"] == 1
        and body["goalTags"] == 1
        and body["intentExtractions"] == 1
    )
    assert counters_log_all() == 1
    assert log_lines("[Agency") == [
        "[Agency 0m] llm=1 goals=1 drives=0 sigDedup=0 contentDedup=0 intents=1"
    ]
    reset = agent_client.post(f"{API}counters/reset").json()
    assert reset["llmCalls"] == 0


# --- pages ---------------------------------------------------------------------


def test_agent_stream_page_and_live_partial(
    perceive: Any,
    publish: Any,
    calm_facts: Any,
    owner_client: Any,
    stranger_client: Any,
) -> None:
    perceive(calm_facts)
    publish(GOAL)
    page = owner_client.get("/stream/alpha/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "collect oak_log" in html and "<html" in html
    live = owner_client.get("/stream/alpha/live")
    assert live.status_code == 200
    assert "<html" not in live.content.decode()
    assert "collect oak_log" in live.content.decode()
    assert stranger_client.get("/stream/alpha/").status_code == 404


@pytest.mark.parametrize("endpoint", ["poke", "counters/reset"])
@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        (b'{"unexpected": 1}', 400, "invalid"),
        (b"[1, 2]", 400, "invalid"),
        (b'{"broken": ', 400, "parse_error"),
    ],
)
def test_bodyless_operations_refuse_a_body(
    agent_client: Any, endpoint: str, raw: bytes, status: int, code: str
) -> None:
    response = agent_client.generic(
        "POST", f"{API}{endpoint}", raw, content_type="application/json"
    )

    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    if code == "invalid":
        assert error_fields(response) == {
            "$": ["This operation takes no body: send nothing or {}."]
        }


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=2048)
@pytest.mark.parametrize("endpoint", ["poke", "counters/reset"])
def test_bodyless_operations_refuse_an_oversized_body(
    agent_client: Any, endpoint: str
) -> None:
    response = agent_client.post(f"{API}{endpoint}", {"x": "y" * 5000}, format="json")

    assert response.status_code == 413


@pytest.mark.parametrize("endpoint", ["poke", "counters/reset"])
def test_bodyless_operations_accept_nothing_or_an_empty_object(
    agent_client: Any, endpoint: str
) -> None:
    assert agent_client.post(f"{API}{endpoint}").status_code < 300
    assert agent_client.post(f"{API}{endpoint}", {}, format="json").status_code < 300


@pytest.mark.parametrize("with_frame", [True, False])
def test_unknown_goal_action_says_which_actions_are_accepted(
    publish: Any, owner_client: Any, perceive: Any, calm_facts: Any, with_frame: bool
) -> None:
    if with_frame:
        perceive(calm_facts)
    body = publish("Cows graze nearby. [GOAL: kill cow 1]").json()
    meta = body["metadata"]
    assert meta["goalFailReason"] == "unknown_action"
    assert meta["goalFailDetail"] == (
        "unknown goal action 'kill'; accepted actions: " + accepted_actions_text()
    )
    assert body["eligibilityReason"] == "goal_fail:unknown_action"
    page = owner_client.get(f"/stream/alpha/thoughts/{body['id']}/")
    assert "accepted actions: build, cancel, check, collect" in page.content.decode()
