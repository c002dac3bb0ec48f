"""No input up to 1 MB makes any sanitizer stage slow (the agency contract §2.1).

Every stage is timed on its own against inputs built to trip regex
backtracking or quadratic loops: pathological brackets, repeated goal
openers, deep nesting, long runs of one character, repeated INTENT tokens,
fences, leaked prompts, repetitive and unrepetitive words, non-ASCII text
and every kind of whitespace. The limit is
50 ms per stage, of CPU time consumed by this process (so other processes
on a shared machine count less), best of three runs. A loaded or slower
machine can push a linear stage past it: then the same input an eighth as
long must take at least 1/20 of the time (linear is 1/8, quadratic 1/64),
and nothing may take half a second.
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from core.whitespace import JS_SPACE_CHARS
from stream.core.sanitizer import STAGE_FUNCTIONS

MB = 1_000_000
LIMIT_S = 0.050
# Past the limit, a stage may take at most this many times an eighth of its
# time on the eighth-long input (linear is 1x), and never more than this.
LINEAR_SLACK = 2.5
CEILING_S = 0.5


def _fill(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


def _inputs(n: int) -> dict[str, str]:
    """The hostile inputs, each ``n`` characters long."""
    rng = random.Random(3)
    unique = " ".join(f"w{rng.randrange(10**9)}" for _ in range(n // 9))[:n]
    vocabulary = [f"v{i}" for i in range(1000)]
    varied = " ".join(rng.choice(vocabulary) for _ in range(n // 4))[:n]
    half = n // 2
    return {
        "open_brackets": "[" * n,
        "close_brackets": "]" * n,
        "nested_brackets": "[" * half + "]" * half,
        "goal_openers": _fill("[GOAL:", n),
        "goal_openers_with_words": _fill("[GOAL: mine ", n),
        "nested_goal_openers": "[GOAL: " * (n // 14) + "]" * (n - n // 14 * 7),
        "unclosed_goal": "[GOAL: " + "a" * (n - 7),
        "intent_tokens": _fill("INTENT: x ", n),
        "nested_intent": "INTENT" * (n // 7) + ":" * (n - n // 7 * 6),
        "glued_intent": _fill("INTENTINTENT::", n),
        "fences": "`" * n,
        "fences_with_tags": _fill("```python ", n),
        "quotes": '"' * n,
        "leaks": _fill("You are an agent. ", n),
        "leak_without_boundary": "You are an agent" + "." * (n - 18) + " X",
        "leak_then_digits": "You are an agent. " + "9" * (n - 18),
        "repeated_word": _fill("cow ", n),
        "alternating_words": _fill("a b ", n),
        "unique_words": unique,
        "unique_then_loop": unique[: n - 24] + " x y z x y z x y z x y z",
        "varied_words": varied,
        "spaces": " " * n,
        "tabs_between_words": _fill("a\t", n),
        "newlines": "\n" * n,
        "space_newline": _fill(" \n", n),
        "digits": "1" * n,
        "sentence_then_digits": "End. " + "1" * (n - 5),
        "periods": "." * n,
        "one_word": "a" * n,
        "punctuated_words": _fill("cow, ", n),
        "mixed": _fill(
            'I see [GOAL: mine x] INTENT: food ```x``` "q" a a a a. 5 \n', n
        ),
        "double_spaces": _fill("a  ", n),
        "non_ascii_words": _fill("\u00e9 ", n),
        "no_break_spaces": _fill("a\u00a0", n),
        "ideographic_spaces": _fill("\u732b\u3000", n),
        "emoji_words": _fill("\U0001f600 x ", n),
        "byte_order_marks": _fill("\u00e9\ufeff", n),
        "python_only_spaces": _fill("\u00e9\x85 \x1c ", n),
        "every_whitespace": "".join(
            rng.choice(JS_SPACE_CHARS + "ab") for _ in range(n)
        ),
    }


INPUTS = _inputs(MB)
# The same inputs an eighth as long: a linear stage takes about an eighth of
# the time on them.
EIGHTHS = _inputs(MB // 8)


@contextmanager
def _collector_off() -> Iterator[None]:
    """The stages' own time: a cyclic-GC pass over the whole test session's
    heap, triggered by a stage's allocations, is not a stage's cost. One
    collection first (late in a session it takes a good part of a second),
    then none until the stage's inputs are done: what a stage makes is
    freed by reference counting."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _best_of_three(stage: Callable[[str], str], text: str) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        stage(text)
        best = min(best, time.process_time() - started)
        if best < LIMIT_S / 5:
            break
    return best


# Slow by design: each stage is timed on megabyte inputs, best of three.
@pytest.mark.parametrize(("stage_name", "stage"), STAGE_FUNCTIONS)
def test_no_megabyte_input_makes_a_stage_slow(
    stage_name: str, stage: Callable[[str], str]
) -> None:
    slow = {}
    with _collector_off():
        for input_name, text in INPUTS.items():
            elapsed = _best_of_three(stage, text)
            if elapsed <= LIMIT_S:
                continue
            # Over the limit (a loaded or slower machine): still linear? The
            # eighth-long input then takes about an eighth of the time, where
            # a quadratic stage takes a sixty-fourth.
            eighth = _best_of_three(stage, EIGHTHS[input_name])
            if elapsed > CEILING_S or elapsed > LINEAR_SLACK * 8 * max(eighth, 1e-4):
                slow[input_name] = (round(elapsed * 1000, 1), round(eighth * 1000, 1))
    assert slow == {}, f"{stage_name}: (ms at 1 MB, ms at 125 KB) {slow}"


def test_inputs_are_a_megabyte_and_an_eighth_of_one() -> None:
    assert {len(text) for text in INPUTS.values()} == {MB}
    assert {len(text) for text in EIGHTHS.values()} == {MB // 8}
    assert EIGHTHS.keys() == INPUTS.keys()
