"""stream.core.planning_metadata: the task metadata projection (no database)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stream.core.planning import (
    TaskStatus,
)
from stream.core.planning_metadata import (
    PROPAGATED_META_KEYS,
    REBUILT_KEYS,
    apply_metadata_patch,
    build_task_metadata,
    keys_to_warn,
    project_incoming_metadata,
)

P, A, C, F = (
    TaskStatus.PENDING,
    TaskStatus.ACTIVE,
    TaskStatus.COMPLETED,
    TaskStatus.FAILED,
)
MIN = 60_000


# --- metadata projection (the agency contract §1) ---------------------------------------------------


def test_projection_keeps_the_allowlist_and_reports_the_rest() -> None:
    projection = project_incoming_metadata(
        {
            "goalKey": "collect:oak_log",
            "subtaskKey": "s",
            "taskProvenance": {"a": 1},
            "tags": ["x"],
            "createdAt": "then",
            "zeta": 1,
            "alpha": 2,
        }
    )
    assert projection.goal_key == "collect:oak_log"
    assert projection.kept == (("subtaskKey", "s"), ("taskProvenance", {"a": 1}))
    assert projection.dropped == ("alpha", "zeta")
    assert projection.rebuilt_ignored == ("createdAt", "tags")


@pytest.mark.parametrize("value", ["", "   ", None, 7, ["a"]])
def test_seed004_projection_treats_empty_goal_key_as_absent(value: Any) -> None:
    projection = project_incoming_metadata({"goalKey": value})
    assert projection.goal_key is None
    assert projection.kept == ()
    assert projection.dropped == ()


def test_projection_of_nothing() -> None:
    projection = project_incoming_metadata(None)
    assert (projection.goal_key, projection.kept, projection.dropped) == (None, (), ())


@given(st.dictionaries(st.text(max_size=12), st.one_of(st.none(), st.text())))
def test_projection_partitions_every_key(incoming: dict[str, Any]) -> None:
    projection = project_incoming_metadata(incoming)
    allow, rebuilt = set(PROPAGATED_META_KEYS), set(REBUILT_KEYS)
    assert {k for k, _ in projection.kept} <= allow - {"goalKey"}
    assert set(projection.dropped) == set(incoming) - allow - rebuilt
    assert set(projection.rebuilt_ignored) == set(incoming) & rebuilt
    assert projection.goal_key != ""
    assert projection.goal_key is None or projection.goal_key.strip()


def test_keys_to_warn_only_new_ones_sorted() -> None:
    assert keys_to_warn(["b", "a", "c", "a"], frozenset({"c"})) == ("a", "b")
    assert keys_to_warn([], frozenset()) == ()


def test_build_task_metadata_rebuilds_from_scratch() -> None:
    projection = project_incoming_metadata(
        {"goalKey": "k:v", "subtaskKey": "s", "retryCount": 9}
    )
    assert build_task_metadata(
        projection,
        now_iso="2026-02-03T12:00:00+00:00",
        tags=["a"],
        category="gathering",
        solver="acquisition",
    ) == {
        "createdAt": "2026-02-03T12:00:00+00:00",
        "updatedAt": "2026-02-03T12:00:00+00:00",
        "retryCount": 0,
        "maxRetries": 3,
        "childTaskIds": [],
        "tags": ["a"],
        "category": "gathering",
        "solver": "acquisition",
        "subtaskKey": "s",
    }


def test_metadata_patch_never_writes_origin_or_identity() -> None:
    current = {"createdAt": "t0", "updatedAt": "t0", "note": "old"}
    patch = apply_metadata_patch(
        current,
        {"origin": {"kind": "api"}, "goalKey": "x:y", "createdAt": "t9", "note": "new"},
        now_iso="t1",
    )
    assert patch.metadata == {"createdAt": "t0", "updatedAt": "t1", "note": "new"}
    assert patch.ignored == ("createdAt", "goalKey", "origin")
    assert current == {"createdAt": "t0", "updatedAt": "t0", "note": "old"}
