"""The keep-alive observation loop (the stream contract KA-A1..A6, KA-A3 with a clock)."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from stream.core.prompts import template_violations
from stream.core.types import Generation, RenderedFrame, SamplerProfile
from stream.models import StreamEvent, Thought
from stream.services.keepalive import keepalive_tick
from stream.services.thought_feed import thoughts_actionable
from stream.services.thoughts import percept_record

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 23, 12, 0, 0, tzinfo=timezone.UTC)


class FixedAdapter:
    """Says the same thing every time, and remembers the prompts it got."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.prompts: list[str] = []

    @property
    def model_id(self) -> str:
        return "fixed"

    def generate(
        self,
        prompt: str,
        *,
        sampler: SamplerProfile,
        seed: int,
        scenario_id: str | None = None,
        frame: RenderedFrame | None = None,
    ) -> Generation:
        self.prompts.append(prompt)
        return Generation(text=self.text, latency_ms=1.0)


def perceive_at(agent: Any, facts: dict[str, Any], when: datetime) -> None:
    percept_record(agent=agent, document={"facts": copy.deepcopy(facts)}, now=when)


def test_ka_a1_introspection_frame_is_factual_only(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive_at(agent, calm_facts, T0)
    adapter = FixedAdapter("The forest is quiet.")
    outcome = keepalive_tick(agent_id=agent.pk, now=T0, adapter=adapter)
    assert outcome.ran
    assert log_lines("[KeepAlive] introspection") == [
        "[KeepAlive] introspection frame_kind=factual_only profile=balanced "
        "facts=7 memories=0 deltas=0"
    ]
    assert template_violations(adapter.prompts[0]) == ()


def test_ka_a1_keepalive_code_holds_no_action_verbs() -> None:
    from pathlib import Path

    import stream.services.keepalive as module

    source = Path(module.__file__).read_text().lower()
    for verb in ('"explore', '"gather', '"craft', '"mine', '"build', "you should"):
        assert verb not in source


def test_ka_a2_keepalive_thoughts_are_not_actionable(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive_at(agent, calm_facts, T0)
    outcome = keepalive_tick(agent_id=agent.pk, now=T0)  # the baseline model
    thought = outcome.thought
    assert thought is not None
    assert thought.type == "keepalive" and thought.convert_eligible is False
    assert thought.processed is False
    assert log_lines("[Cognition] keepalive_thought") == [
        f"[Cognition] keepalive_thought published id={thought.pk} "
        "convertEligible=false processed=false"
    ]


def test_ka_a2_a_grounded_goal_from_the_model_is_actionable(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive_at(agent, calm_facts, T0)
    adapter = FixedAdapter("Logs are stacked here. [GOAL: collect oak_log 4]")
    thought = keepalive_tick(agent_id=agent.pk, now=T0, adapter=adapter).thought
    assert thought is not None and thought.convert_eligible is True
    assert thought.metadata["extractedGoal"]["action"] == "collect"
    assert thought.metadata["grounding"]["pass"] is True


def test_ka_a3_stable_scenario_ten_minutes_no_action(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    """10 simulated minutes, a percept every 15 s, a tick every 10 s."""
    for second in range(0, 601, 5):
        now = T0 + timedelta(seconds=second)
        if second % 15 == 0:
            perceive_at(agent, calm_facts, now)
        if second % 10 == 0:
            keepalive_tick(agent_id=agent.pk, now=now)
    assert thoughts_actionable(agent=agent, limit=100) == []
    assert not Thought.objects.filter(agent=agent, convert_eligible=True).exists()
    introspections = log_lines("[KeepAlive] introspection")
    assert len(introspections) == 6  # t = 0, 120, 240, 360, 480, 600 s
    assert log_lines("[CognitiveStream] /actionable: returned=0 queue_size=")
    assert len(log_lines("[KeepAlive] bypass")) == 0


def test_ka_a4_cooldown_skips_with_remaining_ms(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive_at(agent, calm_facts, T0)
    keepalive_tick(agent_id=agent.pk, now=T0)
    outcome = keepalive_tick(agent_id=agent.pk, now=T0 + timedelta(seconds=10))
    assert not outcome.ran
    assert log_lines("[KeepAlive] skip") == [
        "[KeepAlive] skip reason=cooldown remaining_ms=110000"
    ]
    assert Thought.objects.filter(agent=agent, type="keepalive").count() == 1


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            lambda f: f["world"]["nearbyEntities"].append(
                {"kind": "zombie", "count": 1, "distanceMin": 8, "hostile": True}
            ),
            "threat_delta",
        ),
        (lambda f: f["bot"].update(health=12), "health_drop"),
        (lambda f: f["bot"].update(hunger=14), "hunger_drop"),
        (
            lambda f: f["world"]["nearbyEntities"].append(
                {"kind": "villager", "count": 1, "distanceMin": 12}
            ),
            "novel_entity",
        ),
    ],
)
def test_ka_a5_stimulus_bypasses_cooldown(
    agent: Any, calm_facts: Any, log_lines: Any, change: Any, reason: str
) -> None:
    perceive_at(agent, calm_facts, T0)
    keepalive_tick(agent_id=agent.pk, now=T0)
    changed = copy.deepcopy(calm_facts)
    change(changed)
    perceive_at(agent, changed, T0 + timedelta(seconds=5))
    outcome = keepalive_tick(agent_id=agent.pk, now=T0 + timedelta(seconds=10))
    assert outcome.ran
    assert log_lines("[KeepAlive] bypass") == [
        f"[KeepAlive] bypass cooldown reason={reason}"
    ]


def test_ka_a5_small_hunger_change_does_not_bypass(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive_at(agent, calm_facts, T0)
    keepalive_tick(agent_id=agent.pk, now=T0)
    calm_facts["bot"]["hunger"] = 17
    perceive_at(agent, calm_facts, T0 + timedelta(seconds=5))
    assert not keepalive_tick(agent_id=agent.pk, now=T0 + timedelta(seconds=10)).ran


def test_ka_a5_eval_poke_bypasses_cooldown(
    agent: Any,
    agent_client: Any,
    calm_facts: Any,
    log_lines: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    perceive_at(agent, calm_facts, timezone.now())
    keepalive_tick(agent_id=agent.pk)
    with django_capture_on_commit_callbacks(execute=True):
        response = agent_client.post("/api/cognitive-stream/poke")
    assert response.status_code == 202
    # Eager Celery in tests: the poke's tick has run.
    assert log_lines("[KeepAlive] bypass") == [
        "[KeepAlive] bypass cooldown reason=eval_poke"
    ]
    assert Thought.objects.filter(agent=agent, type="keepalive").count() == 2


def test_ka_a6_refresh_uses_the_perception_pathway_only(
    agent: Any, agent_client: Any, log_lines: Any
) -> None:
    outcome = keepalive_tick(agent_id=agent.pk, now=T0)
    assert not outcome.ran and outcome.refresh_requested
    assert log_lines("[KeepAlive] request") == [
        "[KeepAlive] request_perception_refresh type=environmental_awareness "
        "source=keepalive"
    ]
    assert not Thought.objects.filter(agent=agent).exists()  # nothing fabricated
    events = agent_client.get("/api/cognitive-stream/events").json()
    assert events["count"] == 1
    assert events["events"][0]["type"] == "environmental_awareness"
    assert events["events"][0]["metadata"]["source"] == "keepalive"
    assert agent_client.get("/api/cognitive-stream/events").json()["count"] == 0


def test_ka_a6_stale_perception_is_refreshed_with_a_circuit_breaker(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive_at(agent, calm_facts, T0)
    for second in (120, 125, 130, 135):
        keepalive_tick(
            agent_id=agent.pk, now=T0 + timedelta(seconds=second), poked=True
        )
    # 4 stale ticks inside one minute, at most 2 refresh requests.
    assert StreamEvent.objects.filter(agent=agent).count() == 2
    assert len(log_lines("[KeepAlive] request_perception_refresh")) == 2


def test_keepalive_deltas_and_memory_reach_the_frame(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    perceive_at(agent, calm_facts, T0)
    keepalive_tick(agent_id=agent.pk, now=T0, adapter=FixedAdapter("Calm forest."))
    calm_facts["bot"]["health"] = 15
    perceive_at(agent, calm_facts, T0 + timedelta(seconds=30))
    adapter = FixedAdapter("That hurt.")
    keepalive_tick(agent_id=agent.pk, now=T0 + timedelta(seconds=40), adapter=adapter)
    lines = log_lines("[KeepAlive] introspection")
    assert lines[-1] == (
        "[KeepAlive] introspection frame_kind=factual_only profile=balanced "
        "facts=7 memories=1 deltas=0"
    )
    assert "Calm forest." in adapter.prompts[0]


HOSTILE = {"kind": "zombie", "count": 1, "distanceMin": 8, "hostile": True}


def test_ka_a5_damage_with_a_hostile_nearby_bypasses(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    calm_facts["world"]["nearbyEntities"].append(dict(HOSTILE))
    perceive_at(agent, calm_facts, T0)
    keepalive_tick(agent_id=agent.pk, now=T0, adapter=FixedAdapter("A zombie."))
    calm_facts["bot"]["health"] = 18
    perceive_at(agent, calm_facts, T0 + timedelta(seconds=5))
    outcome = keepalive_tick(
        agent_id=agent.pk, now=T0 + timedelta(seconds=10), adapter=FixedAdapter("Ow.")
    )
    assert outcome.ran
    assert log_lines("[KeepAlive] bypass") == [
        "[KeepAlive] bypass cooldown reason=damage"
    ]


@pytest.mark.parametrize(("health", "bypassed"), [(18, False), (16, False), (15, True)])
def test_ka_a5_health_drop_threshold_gates_a_loss_with_no_hostile(
    agent: Any, calm_facts: Any, log_lines: Any, health: int, bypassed: bool
) -> None:
    """KEEPALIVE_HEALTH_DROP (4) decides: a loss of 2 or 4 waits, 5 bypasses."""
    perceive_at(agent, calm_facts, T0)
    keepalive_tick(agent_id=agent.pk, now=T0, adapter=FixedAdapter("Calm."))
    calm_facts["bot"]["health"] = health
    perceive_at(agent, calm_facts, T0 + timedelta(seconds=5))
    outcome = keepalive_tick(
        agent_id=agent.pk, now=T0 + timedelta(seconds=10), adapter=FixedAdapter("Hm.")
    )
    assert outcome.ran is bypassed
    expected = ["[KeepAlive] bypass cooldown reason=health_drop"] if bypassed else []
    assert log_lines("[KeepAlive] bypass") == expected


def test_i_3_baseline_keepalive_never_makes_a_goal_eligible(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    """No model configured (the built-in baseline): a zombie gives a goal tag
    in the text's metadata, but no eligible thought and no task."""
    from stream.models import Task
    from stream.services.planning import planning_cycle

    calm_facts["world"]["nearbyEntities"].append(dict(HOSTILE))
    perceive_at(agent, calm_facts, T0)
    thought = keepalive_tick(agent_id=agent.pk, now=T0).thought
    assert thought is not None
    assert thought.metadata["extractedGoal"] is not None  # the rule table's goal
    assert thought.convert_eligible is False
    assert thought.eligibility_reason == "observe_only"
    assert log_lines("[Cognition] keepalive_thought") == [
        f"[Cognition] keepalive_thought published id={thought.pk} "
        "convertEligible=false processed=false"
    ]
    planning_cycle(agent_id=agent.pk)
    assert thoughts_actionable(agent=agent, limit=10) == []
    assert not Task.objects.filter(agent=agent).exists()


def test_i_1_ka_a1_drive_tick_goal_text_never_reaches_the_memory_slice(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    from stream.services.drive_tick import drive_tick_from_latest

    calm_facts["bot"]["inventorySummary"] = []
    perceive_at(agent, calm_facts, T0)
    fired = drive_tick_from_latest(agent=agent, game_mode="survival", now=T0)
    assert fired.fired and fired.thought is not None
    assert "GOAL:" in fired.thought.content
    adapter = FixedAdapter("Quiet.")
    outcome = keepalive_tick(agent_id=agent.pk, now=T0, adapter=adapter)
    assert outcome.ran
    assert "(GOAL:" not in adapter.prompts[0]
    assert "Drive tick" not in adapter.prompts[0]
    assert log_lines("[KeepAlive] skip") == []


def test_i_1_ka_a1_a_prompt_with_goal_text_is_refused_before_the_model(
    agent: Any, calm_facts: Any, log_lines: Any
) -> None:
    """The run-time guard: goal text that reaches a frame by any path (here
    an agent-named item) stops the tick before the model is asked."""
    from stream.models import KeepAliveState

    calm_facts["bot"]["inventorySummary"].append(
        {"item": "note (GOAL: collect oak_log 8)", "count": 1}
    )
    perceive_at(agent, calm_facts, T0)
    adapter = FixedAdapter("Never asked.")
    outcome = keepalive_tick(agent_id=agent.pk, now=T0, adapter=adapter)
    assert (outcome.ran, outcome.reason) == (False, "frame_violation")
    assert adapter.prompts == []
    assert log_lines("[KeepAlive] skip") == [
        "[KeepAlive] skip reason=frame_violation violations=frame:goal_tag"
    ]
    assert not Thought.objects.filter(agent=agent, type="keepalive").exists()
    # The slot was given back: no cooldown was started by the refused tick.
    assert KeepAliveState.objects.get(agent=agent).last_introspection_at is None


def test_ka_a5_poke_is_rate_limited(
    agent: Any,
    agent_client: Any,
    calm_facts: Any,
    django_capture_on_commit_callbacks: Any,
    settings: Any,
) -> None:
    settings.KEEPALIVE_MAX_POKES_PER_MIN = 2
    perceive_at(agent, calm_facts, timezone.now())
    codes = []
    for _ in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            codes.append(agent_client.post("/api/cognitive-stream/poke"))
    assert [r.status_code for r in codes] == [202, 202, 429]
    body = codes[2].json()
    assert body["error"]["code"] == "throttled"
    assert 1 <= int(codes[2]["Retry-After"]) <= 60
    # Only the two accepted pokes ran a tick.
    assert Thought.objects.filter(agent=agent, type="keepalive").count() == 2
