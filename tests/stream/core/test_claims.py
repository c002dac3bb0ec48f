"""Claim grounding of free text (PA-D1 beyond the goal target); pure."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stream.core import claims
from stream.core.claims import CLAIM_GROUNDING_VERSION, claims_to_wire, ground_claims
from stream.core.frames import facts_from_wire, render_frame
from stream.core.types import PromptProfile

FACTS = facts_from_wire(
    {
        "facts": {
            "bot": {
                "position": {"x": 0, "y": 64, "z": 0},
                "health": 20,
                "hunger": 20,
                "inventorySummary": [
                    {"item": "stone_pickaxe", "count": 1},
                    {"item": "oak_log", "count": 4},
                ],
                "timeOfDay": "day",
            },
            "world": {
                "biome": "birch_forest",
                "nearbyEntities": [{"kind": "cow", "count": 2, "distanceMin": 5}],
            },
        }
    }
)


def ungrounded(text: str) -> list[tuple[str, str]]:
    frame = render_frame(FACTS, profile=PromptProfile.BALANCED)
    result = ground_claims(text, facts=FACTS, frame_text=frame.text)
    return [(c.name, c.category.value) for c in result.ungrounded]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I grip my diamond sword tightly.", [("diamond_sword", "missing_item")]),
        ("The zombie next to me groans.", [("zombie", "missing_entity")]),
        ("I'm next to a river.", [("river", "missing_location")]),
        (
            "Skeletons everywhere, and I'm holding iron ingots.",
            [("skeleton", "missing_entity"), ("iron_ingot", "missing_item")],
        ),
    ],
)
def test_pa_d1_fabricated_claims_in_free_text_are_flagged(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert ungrounded(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Two cows graze in the forest.",  # present entity, part of the biome
        "My pickaxe and my oak logs are ready.",  # generic word, plural
        "No zombies around, I don't see any creepers.",  # negated
        "I need a diamond pickaxe and want to find iron ore.",  # intent
        "A creeper might come at night.",  # possibility
        "A diamond sword would be nice.",  # no possession claimed
        "The forest is quiet.",
    ],
)
def test_pa_d1_grounded_negated_or_intended_mentions_are_not_flagged(
    text: str,
) -> None:
    assert ungrounded(text) == []


def test_names_in_the_frame_text_count_as_present() -> None:
    text = "The villager I met is gone."
    assert ungrounded(text) == [("villager", "missing_entity")]
    result = ground_claims(
        text, facts=FACTS, frame_text="[Memory]\n[Recent] A villager waved."
    )
    assert result.passed


def test_wire_shape_and_each_name_once() -> None:
    result = ground_claims(
        "A zombie! The zombie again. My cow.", facts=FACTS, frame_text=""
    )
    assert claims_to_wire(result) == {
        "version": CLAIM_GROUNDING_VERSION,
        "checked": 2,
        "pass": False,
        "ungrounded": [{"name": "zombie", "category": "missing_entity"}],
    }


def _mentions_word_by_word(text: str) -> list[Any]:
    """The mention scan without the name-head shortcut: every window of 3,
    2 and 1 words is looked up."""
    found = []
    for sentence in claims._SENTENCE.split(text.lower()):
        tokens = [t.strip("'") for t in claims._TOKEN.findall(sentence)]
        index = 0
        while index < len(tokens):
            for size in (3, 2, 1):
                words = tokens[index : index + size]
                if len(words) < size:
                    continue
                hit = claims._lookup_joined("_".join(words))
                if hit is not None:
                    before = tuple(tokens[max(0, index - 3) : index])
                    after = tuple(tokens[index + size : index + size + 2])
                    found.append((hit[0], hit[1], before, after))
                    index += size
                    break
            else:
                index += 1
    return found


_NAMES = sorted(claims.CLAIM_ENTITIES | claims.CLAIM_ITEMS | claims.CLAIM_PLACES)
_WORDS = sorted(
    {part for name in _NAMES for part in name.split("_")}
    | {w for name in _NAMES for w in (name, name + "s", name + "es")}
    | {"no", "my", "have", "might", "i", "see", "the", "a", "x'", "oak_", "'"}
)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_WORDS),
            st.sampled_from([" ", " ", ". ", "\n", "; ", ", ", "' ", "_"]),
        ),
        max_size=30,
    ),
    st.sampled_from([str, str.upper, str.title]),
)
def test_looking_up_words_by_name_heads_finds_what_every_window_finds(
    parts: list[tuple[str, str]], case: Any
) -> None:
    text = case("".join(word + sep for word, sep in parts))
    assert claims._mentions(text) == _mentions_word_by_word(text)


def test_multi_word_names_are_found_as_written() -> None:
    found = [m[0] for m in claims._mentions("My dark oak logs and a wither skeleton")]
    assert found == ["dark_oak_log", "wither_skeleton"]
