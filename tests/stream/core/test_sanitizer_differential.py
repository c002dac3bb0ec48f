"""Our sanitizer against the reference one, line by line, on 1,000 inputs.

``tests/stream/data/sanitizer-differential.jsonl`` holds generated inputs
(realistic thoughts and hostile symbol soup) with the reference pipeline's
whole output for each (its README says how it was made). Every field is
compared: text, goalTag, goalTagV1, intent, intentParse, the ten flags,
goalKey and usable. A line may differ only in a documented class (docs/stream.md,
"Where we differ from the reference sanitizer"), each an upstream bug we keep
fixed. A class is recognised in one of two ways:

- a *rule swap*: the reference rule is put in place of ours (the functions
  below are the reference's rules, written out) and the line is run again;
  if the swap makes the line agree, the difference is that rule's;
- a *field rule*: a difference that is the same on every line it touches
  (an empty goalKey, a flag raised for whitespace).

A line that differs and that no class explains fails the test; the counts
per class are printed (``pytest -s``) and pinned below, so a change that
moves lines between classes is seen.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from core.whitespace import JS_SPACE_CHARS
from stream.core import goals, intent, sanitizer
from stream.core.intent import IntentExtraction
from stream.core.js_text import utf16_len
from stream.core.sanitizer import sanitize
from stream.core.types import IntentParse

DATA = Path(__file__).resolve().parent.parent / "data" / "sanitizer-differential.jsonl"
# Lines end at "\n" only: inputs hold U+2028 and friends, which splitlines cuts at.
ROWS: list[dict[str, Any]] = [
    json.loads(line) for line in DATA.read_text(encoding="utf-8").split("\n") if line
]


def to_upstream_shape(raw: str) -> dict[str, Any]:
    """Our result with the reference's field names and encodings."""
    result = sanitize(raw)
    goal = result.goal
    reason = result.goal_fail_reason
    return {
        "text": result.text,
        "goalTag": None
        if goal is None
        else {"action": goal.action, "target": goal.target, "amount": goal.amount},
        "goalTagV1": None
        if goal is None
        else {
            "version": 1,
            "action": goal.action,
            "target": goal.target,
            "targetId": goal.target_id,
            "amount": goal.amount,
            "raw": goal.raw,
        },
        "intent": result.intent,
        "intentParse": result.intent_parse.value if result.intent_parse else None,
        "flags": {
            "hadCodeFences": "code_fences" in result.flags,
            "hadSystemPromptLeak": "prompt_leaks" in result.flags,
            "hadDegeneration": "degeneration" in result.flags,
            "hadTrailingGarbage": "trailing_garbage" in result.flags,
            "hadCodeContent": result.had_code_content,
            "rawGoalTag": result.raw_goal_tag,
            "goalTagFailReason": reason.value if reason else "none",
            "goalTagCount": result.goal_tag_count,
            "originalLength": utf16_len(raw),
            "cleanedLength": utf16_len(result.text),
        },
        "goalKey": result.goal_key,
        "usable": result.is_usable,
    }


def differing_fields(ours: dict[str, Any], upstream: dict[str, Any]) -> set[str]:
    fields = {
        name for name in upstream if name != "flags" and ours[name] != upstream[name]
    }
    flags = upstream["flags"]
    return fields | {
        f"flags.{name}" for name in flags if ours["flags"][name] != flags[name]
    }


# --- field rules -----------------------------------------------------------


def empty_goal_key(ours: dict[str, Any], upstream: dict[str, Any]) -> set[str]:
    """The reference reports the empty key of a targetless goal as ``""``; the
    agency contract (goalKey) says an empty key is absent: ``null``."""
    if upstream["goalKey"] == "" and ours["goalKey"] is None:
        return {"goalKey"}
    return set()


FIELD_RULES: dict[str, Callable[[dict[str, Any], dict[str, Any]], set[str]]] = {
    "empty_goal_key": empty_goal_key,
}


# --- the reference's rules, for rule swaps ---------------------------------

_HSPACE_RUN = re.compile(
    "[" + "".join(c for c in JS_SPACE_CHARS if c != "\n") + "]{2,}"
)
_real_extract_intent = intent.extract_intent


def reference_extract_intent(text: str) -> IntentExtraction:
    """The reference calls a thought ``inline_noncompliant`` whenever its
    inline strip changed the text, and the strip also collapses horizontal
    whitespace and trims: so a double space alone raises it."""
    result = _real_extract_intent(text)
    if result.intent_parse is None:
        collapsed = _HSPACE_RUN.sub(" ", text).strip(JS_SPACE_CHARS)
        if collapsed != text:
            return IntentExtraction(collapsed, None, IntentParse.INLINE_NONCOMPLIANT)
    return result


def reference_quantity(sign: str, digits: str) -> int | None:
    """``parseInt``'s value, whatever it is: negative, or past 9 digits (and
    then a double, rounded)."""
    return int(float(sign + digits))


def reference_last_sentence_end(text: str) -> int:
    """The last ``.``, ``!`` or ``?``, wherever it is (``3.14`` -> ``3.``)."""
    return max(text.rfind(end) for end in ".!?")


@contextmanager
def _patch(*targets: tuple[object, str, object]) -> Iterator[None]:
    with ExitStack() as stack:
        for owner, name, value in targets:
            stack.enter_context(mock.patch.object(owner, name, value))
        yield


RULE_SWAPS: dict[str, Callable[[], Any]] = {
    # An INTENT parse reported for a thought without an INTENT token.
    "intent_parse_without_token": lambda: _patch(
        (sanitizer, "has_intent_token", lambda text: True),
        (sanitizer, "extract_intent", reference_extract_intent),
    ),
    # An INTENT: token the reference leaves in the text (no word after it, a
    # word it does not count as one, or a token its own removal formed).
    "intent_token_left_in_text": lambda: _patch(
        (intent, "_LEFTOVER", re.compile(r"(?!)")),
    ),
    # A "number" that is no quantity: negative, or more than 9 digits.
    "amount_not_a_quantity": lambda: _patch(
        (goals, "_quantity", reference_quantity),
    ),
    # A trailing number that does not follow a sentence end ("I have 3").
    "trailing_number_kept": lambda: _patch(
        (sanitizer, "_number_is_standalone", lambda before, gap: True),
    ),
    # A "fragment" cut after a "." inside a word ("3.14" -> "3.").
    "sentence_end_inside_word": lambda: _patch(
        (sanitizer, "_last_sentence_end", reference_last_sentence_end),
    ),
}

# Lines per class on the data set; a change here is a change of behaviour.
EXPECTED_COUNTS = {
    "empty_goal_key": 24,
    "intent_parse_without_token": 202,
    "intent_token_left_in_text": 22,
    "amount_not_a_quantity": 13,
    "trailing_number_kept": 41,
    "sentence_end_inside_word": 23,
}


def _explained_by_field_rules(
    ours: dict[str, Any], upstream: dict[str, Any]
) -> tuple[set[str], set[str]]:
    fields: set[str] = set()
    classes: set[str] = set()
    for name, rule in FIELD_RULES.items():
        explained = rule(ours, upstream)
        if explained:
            fields |= explained
            classes.add(name)
    return fields, classes


def classify(row: dict[str, Any]) -> set[str] | None:
    """The classes that explain a line's differences (empty: none), or
    ``None`` when no combination of classes does."""
    upstream = row["upstream"]
    ours = to_upstream_shape(row["input"])
    explained, classes = _explained_by_field_rules(ours, upstream)
    if not differing_fields(ours, upstream) - explained:
        return classes
    for size in range(1, len(RULE_SWAPS) + 1):
        for names in itertools.combinations(RULE_SWAPS, size):
            with ExitStack() as stack:
                for name in names:
                    stack.enter_context(RULE_SWAPS[name]())
                swapped = to_upstream_shape(row["input"])
            explained, field_classes = _explained_by_field_rules(swapped, upstream)
            if not differing_fields(swapped, upstream) - explained:
                return field_classes | set(names)
    return None


def test_data_set_is_the_reference_one() -> None:
    assert len(ROWS) == 1000
    assert {row["family"] for row in ROWS} == {"template", "compose"}
    assert all(
        set(row["upstream"]) >= {"text", "flags", "goalKey", "usable"} for row in ROWS
    )


def test_every_difference_from_the_reference_is_a_documented_class() -> None:
    counts: Counter[str] = Counter()
    unexplained = []
    agree = 0
    for row in ROWS:
        classes = classify(row)
        if classes is None:
            ours = to_upstream_shape(row["input"])
            unexplained.append(
                (
                    row["id"],
                    sorted(differing_fields(ours, row["upstream"])),
                    row["input"],
                )
            )
            continue
        if not classes:
            agree += 1
        counts.update(classes)
    print(f"\nsanitizer vs reference: {agree}/{len(ROWS)} lines identical")
    for name in EXPECTED_COUNTS:
        print(f"  {name}: {counts[name]}")
    assert not unexplained, f"{len(unexplained)} unexplained: {unexplained[:5]}"
    assert dict(counts) | {n: counts[n] for n in EXPECTED_COUNTS} == EXPECTED_COUNTS


def test_documented_classes_are_the_ones_in_the_docs() -> None:
    docs = (Path(__file__).resolve().parents[3] / "docs" / "stream.md").read_text()
    for name, count in EXPECTED_COUNTS.items():
        assert f"| `{name}` | {count} |" in docs, name
    identical = len(ROWS) - sum(1 for row in ROWS if classify(row))
    assert f"the differential test, {identical} lines agree in every field" in " ".join(
        docs.split()
    )


@pytest.mark.parametrize("name", sorted(RULE_SWAPS))
def test_each_rule_swap_changes_something(name: str) -> None:
    # A swap that changes no line is a class that can never be observed.
    changed = 0
    for row in ROWS:
        before = to_upstream_shape(row["input"])
        with RULE_SWAPS[name]():
            after = to_upstream_shape(row["input"])
        changed += before != after
    assert changed > 0
