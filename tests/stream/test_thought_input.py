"""The plain-body check of a posted thought gives the serializer's answer.

``plain_thought_input`` may hand a body to the serializer (None) whenever it
likes, but when it accepts one, the serializer must accept it too and
validate it to the same values; the common bodies must take the fast path.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from stream.api.serializers import ThoughtBatchInputSerializer, ThoughtInputSerializer
from stream.core.thought_input import plain_thought_batch, plain_thought_input

CONTENTS = st.one_of(
    st.text(max_size=8),
    st.sampled_from(
        [
            "",
            " ",
            "\n",
            "a\x00b",
            "\ud800",
            "caf\u00e9 \ud83d\ude00",
            "x" * 20_000,
            "x" * 20_001,
            "Observation: two cows. [GOAL: collect oak_log 2]",
        ]
    ),
    st.integers(),
    st.none(),
    st.booleans(),
    st.lists(st.text(max_size=2), max_size=2),
)
TYPES = st.one_of(
    st.sampled_from(
        [
            "reflection",
            "plan",
            "a",
            "a" * 64,
            "a" * 65,
            "Reflection",
            " reflection",
            "reflection ",
            "reflection\n",
            "keepalive",
            "drive_tick",
            "environmental_awareness",
            "9lives",
            "x-y_z",
            "",
        ]
    ),
    st.text(max_size=4),
    st.integers(),
    st.none(),
    st.booleans(),
)
CLAIMS = st.one_of(
    st.booleans(),
    st.none(),
    st.sampled_from(["true", "false", "yes", "1", 1, 0, 2, 1.0, "", [], {}]),
)
METADATA = st.one_of(
    st.dictionaries(
        st.text(max_size=3),
        st.one_of(st.none(), st.integers(), st.text(max_size=3), st.booleans()),
        max_size=3,
    ),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.text(max_size=3),
    st.integers(),
)
BODIES = st.fixed_dictionaries(
    {},
    optional={
        "content": CONTENTS,
        "type": TYPES,
        "convertEligible": CLAIMS,
        "metadata": METADATA,
        "goalKey": st.text(max_size=3),
    },
)


def _serializer_answer(body: Any) -> dict[str, Any] | None:
    serializer = ThoughtInputSerializer(data=body)
    return dict(serializer.validated_data) if serializer.is_valid() else None


@settings(max_examples=600, deadline=None)
@given(BODIES)
def test_a_plain_body_is_validated_as_the_serializer_validates_it(body: Any) -> None:
    fast = plain_thought_input(body)
    if fast is not None:
        assert _serializer_answer(body) == fast


@settings(max_examples=200, deadline=None)
@given(st.lists(BODIES, max_size=4))
def test_a_plain_batch_is_validated_as_the_serializer_validates_it(
    bodies: list[Any],
) -> None:
    fast = plain_thought_batch(bodies, max_batch=3)
    if fast is not None:
        serializer = ThoughtBatchInputSerializer(data={"thoughts": bodies})
        assert serializer.is_valid()
        assert [dict(item) for item in serializer.validated_data["thoughts"]] == fast
        assert 0 < len(bodies) <= 3


def test_the_bodies_agents_post_take_the_fast_path() -> None:
    bodies = [
        {"content": "Two cows graze. [GOAL: collect oak_log 2]"},
        {"content": "plan", "type": "plan", "metadata": {"step": 1}},
        {"content": "caf\u00e9", "convertEligible": True, "goalKey": "x"},
        {"content": " ", "convertEligible": None, "metadata": {}},
    ]
    for body in bodies:
        assert plain_thought_input(body) == _serializer_answer(body) is not None
    assert plain_thought_batch(bodies, max_batch=4) is not None


def test_bodies_the_serializer_must_judge_are_left_to_it() -> None:
    for body in (
        [],
        {"content": ""},
        {"content": 5},
        {"content": "a\x00b"},
        {"content": "\ud800"},
        {"content": "x" * 20_001},
        {"content": "x", "type": "keepalive"},
        {"content": "x", "type": " plan"},
        {"content": "x", "type": None},
        {"content": "x", "convertEligible": "true"},
        {"content": "x", "metadata": [1]},
    ):
        assert plain_thought_input(body) is None, body
    assert plain_thought_batch([], max_batch=3) is None
    assert plain_thought_batch([{"content": "x"}] * 4, max_batch=3) is None
    assert plain_thought_batch({"content": "x"}, max_batch=3) is None
