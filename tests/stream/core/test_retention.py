"""stream.core.retention: which rows of the bounded thought queue to drop
(no database)."""

from __future__ import annotations

from stream.core.retention import QueueItem, RetentionPolicy, plan_prune

MIN = 60_000
POLICY = RetentionPolicy(
    hard_cap=3,
    processed_max_age_ms=60 * MIN,
    actionable_max_age_ms=30 * MIN,
    other_max_age_ms=10 * MIN,
)
NOW = 1_000 * MIN


def item(pk: int, age_min: float, *, processed: bool, actionable: bool) -> QueueItem:
    return QueueItem(
        pk=pk,
        created_ms=NOW - int(age_min * MIN),
        processed=processed,
        actionable=actionable,
    )


def test_each_kind_of_row_expires_after_its_own_age() -> None:
    items = [
        item(1, 61, processed=True, actionable=False),
        item(2, 59, processed=True, actionable=False),
        item(3, 31, processed=False, actionable=True),
        item(4, 29, processed=False, actionable=True),
        item(5, 11, processed=False, actionable=False),
    ]
    assert plan_prune(items, now_ms=NOW, policy=POLICY) == (1, 3, 5)


def test_over_the_cap_processed_rows_go_first_then_the_oldest_others() -> None:
    items = [
        item(1, 1, processed=False, actionable=False),
        item(2, 2, processed=False, actionable=False),
        item(3, 1, processed=True, actionable=False),
        item(4, 5, processed=False, actionable=True),
        item(5, 6, processed=False, actionable=True),
    ]
    assert plan_prune(items, now_ms=NOW, policy=POLICY) == (2, 3)


def test_unacknowledged_actionable_rows_inside_their_window_are_never_dropped() -> None:
    items = [item(pk, pk, processed=False, actionable=True) for pk in range(1, 6)]
    assert plan_prune(items, now_ms=NOW, policy=POLICY) == ()


def test_the_plan_does_not_depend_on_the_order_of_the_rows() -> None:
    items = [
        item(pk, pk, processed=pk % 2 == 0, actionable=pk % 3 == 0)
        for pk in range(1, 9)
    ]
    forward = plan_prune(items, now_ms=NOW, policy=POLICY)
    assert forward == plan_prune(items[::-1], now_ms=NOW, policy=POLICY)
    assert forward == tuple(sorted(forward))
