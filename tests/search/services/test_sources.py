"""The readers of each source: batches in id (or change-time) order, and
where the watermark moves."""

from __future__ import annotations

from typing import Any

import pytest

from search.services.sources import (
    keepalive_docs,
    score_comment_docs,
    thought_docs,
)
from tests.search.search_support import thought_make

pytestmark = pytest.mark.django_db


def test_thought_batches_follow_ids(agent: Any) -> None:
    made = [thought_make(agent, f"t{i}") for i in range(3)]
    first = thought_docs(0, 2)
    assert [d.ref for d in first.docs] == [str(made[0].pk), str(made[1].pk)]
    assert (first.last_id, first.rows) == (made[1].pk, 2)
    rest = thought_docs(first.last_id, 2)
    assert [d.ref for d in rest.docs] == [str(made[2].pk)]
    empty = thought_docs(rest.last_id, 2)
    assert (empty.docs, empty.last_id, empty.rows) == ([], rest.last_id, 0)


def test_keepalive_batch_reads_the_line_and_detail() -> None:
    from tests.reviews.subjects_support import DECISION_LINE, decision_make

    decision = decision_make()
    batch = keepalive_docs(0, 10)
    (doc,) = batch.docs
    assert doc.text == f"{DECISION_LINE}\nevery condition holds"
    assert batch.last_id == decision.pk


def test_score_comments_page_by_change_time_and_id(owner: Any, member: Any) -> None:
    from reviews.models import Score
    from reviews.services.configs import config_create

    config = config_create(name="quality", kind="numeric", min_value=1, max_value=5)
    scores = [
        Score.objects.create(
            config=config, kind="thought", ref=str(i), value_number=2,
            comment=f"comment {i}" if i != 1 else "", source="review", author=user,
        )
        for i, user in enumerate([owner, member, owner])
    ]  # fmt: skip
    first = score_comment_docs(0, 2, None)
    # the row without a comment moves the watermark but makes no document
    assert [d.text for d in first.docs] == ["comment 0"]
    assert (first.last_id, first.last_time) == (scores[1].pk, scores[1].updated_at)
    rest = score_comment_docs(first.last_id, 2, first.last_time)
    assert [d.text for d in rest.docs] == ["comment 2"]
