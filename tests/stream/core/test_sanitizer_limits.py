"""No input up to 1 MB makes any sanitizer stage slow (the agency contract §2.1).

Every stage is timed on its own against inputs built to trip regex
backtracking or quadratic loops: pathological brackets, repeated goal
openers, deep nesting, long runs of one character, repeated INTENT tokens,
fences, leaked prompts, repetitive and unrepetitive words. The limit is
50 ms per stage, of CPU time consumed by this process (so other processes
on a shared machine do not count), best of three runs.
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable

import pytest

from stream.core.sanitizer import STAGE_FUNCTIONS

MB = 1_000_000
LIMIT_S = 0.050


def _fill(unit: str) -> str:
    return (unit * (MB // len(unit) + 1))[:MB]


def _inputs() -> dict[str, str]:
    rng = random.Random(3)
    unique = " ".join(f"w{rng.randrange(10**9)}" for _ in range(MB // 9))[:MB]
    vocabulary = [f"v{i}" for i in range(1000)]
    varied = " ".join(rng.choice(vocabulary) for _ in range(MB // 4))[:MB]
    half = MB // 2
    return {
        "open_brackets": "[" * MB,
        "close_brackets": "]" * MB,
        "nested_brackets": "[" * half + "]" * half,
        "goal_openers": _fill("[GOAL:"),
        "goal_openers_with_words": _fill("[GOAL: mine "),
        "nested_goal_openers": "[GOAL: " * (MB // 14) + "]" * (MB - MB // 14 * 7),
        "unclosed_goal": "[GOAL: " + "a" * (MB - 7),
        "intent_tokens": _fill("INTENT: x "),
        "nested_intent": "INTENT" * (MB // 7) + ":" * (MB - MB // 7 * 6),
        "glued_intent": _fill("INTENTINTENT::"),
        "fences": "`" * MB,
        "fences_with_tags": _fill("```python "),
        "quotes": '"' * MB,
        "leaks": _fill("You are an agent. "),
        "leak_without_boundary": "You are an agent" + "." * (MB - 18) + " X",
        "leak_then_digits": "You are an agent. " + "9" * (MB - 18),
        "repeated_word": _fill("cow "),
        "alternating_words": _fill("a b "),
        "unique_words": unique,
        "unique_then_loop": unique[: MB - 24] + " x y z x y z x y z x y z",
        "varied_words": varied,
        "spaces": " " * MB,
        "tabs_between_words": _fill("a\t"),
        "newlines": "\n" * MB,
        "space_newline": _fill(" \n"),
        "digits": "1" * MB,
        "sentence_then_digits": "End. " + "1" * (MB - 5),
        "periods": "." * MB,
        "one_word": "a" * MB,
        "punctuated_words": _fill("cow, "),
        "mixed": _fill('I see [GOAL: mine x] INTENT: food ```x``` "q" a a a a. 5 \n'),
    }


INPUTS = _inputs()


def _best_of_three(stage: Callable[[str], str], text: str) -> float:
    # The stage's own time: a cyclic-GC pass over the whole test session's
    # heap, triggered by the stage's allocations, is not the stage's cost.
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            started = time.process_time()
            stage(text)
            best = min(best, time.process_time() - started)
            if best < LIMIT_S / 5:
                break
    finally:
        gc.enable()
    return best


@pytest.mark.parametrize(("stage_name", "stage"), STAGE_FUNCTIONS)
def test_no_megabyte_input_takes_over_50ms_in_a_stage(
    stage_name: str, stage: Callable[[str], str]
) -> None:
    slow = {}
    for input_name, text in INPUTS.items():
        elapsed = _best_of_three(stage, text)
        if elapsed > LIMIT_S:
            slow[input_name] = round(elapsed * 1000, 1)
    assert slow == {}, f"{stage_name} over 50 ms (ms): {slow}"


def test_inputs_are_a_megabyte() -> None:
    assert {len(text) for text in INPUTS.values()} == {MB}
