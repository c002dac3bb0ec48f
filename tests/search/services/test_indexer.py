"""The indexer: each source's new rows become documents once, a pass
resumes after its watermark, edits and deletions follow, the command and
the task run a pass."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from search.models import SearchDocument, Watermark
from search.services.indexer import index_pass, rebuild
from search.tasks import search_index_pass
from tests.search.search_support import thought_make

pytestmark = pytest.mark.django_db


def _docs(kind: str) -> list[SearchDocument]:
    return list(SearchDocument.objects.filter(kind=kind).order_by("pk"))


def test_thoughts_become_documents_with_their_filters(agent: Any) -> None:
    plain = thought_make(agent, "Zombie at the gate", type="observation")
    ungrounded = thought_make(
        agent, "Go mine diamonds", grounding_passed=False, minutes=1
    )
    result = index_pass()
    assert result.written == {"thought": 2}
    docs = {d.ref: d for d in _docs("thought")}
    doc = docs[str(plain.pk)]
    assert (doc.agent_id, doc.subject, doc.subject_ref) == (
        agent.pk,
        "thought",
        str(plain.pk),
    )
    assert (doc.text, doc.terms, doc.flags) == (
        "Zombie at the gate",
        "zombie at the gate",
        " observation ",
    )
    assert doc.eligible is False
    assert docs[str(ungrounded.pk)].flags == " reflection ungrounded "


def test_a_second_pass_reads_only_new_rows(agent: Any) -> None:
    thought_make(agent, "first")
    index_pass()
    assert index_pass().written == {}
    newer = thought_make(agent, "second")
    assert index_pass().written == {"thought": 1}
    assert Watermark.objects.get(source="thought").last_id == newer.pk


def test_batches_resume_and_report_more_left(agent: Any) -> None:
    for i in range(5):
        thought_make(agent, f"note {i}")
    first = index_pass(batch=2, max_batches=1)
    assert (first.written, first.more) == ({"thought": 2}, True)
    index_pass(batch=2, max_batches=10)
    assert SearchDocument.objects.filter(kind="thought").count() == 5


def test_documents_of_deleted_old_thoughts_are_pruned(agent: Any) -> None:
    old = thought_make(agent, "old news")
    kept = thought_make(agent, "fresh news", minutes=5)
    index_pass()
    old.delete()
    index_pass()
    assert [d.ref for d in _docs("thought")] == [str(kept.pk)]


def test_keepalive_decisions_are_indexed_with_their_pull_page() -> None:
    from tests.reviews.subjects_support import decision_make

    decision = decision_make()
    index_pass()
    (doc,) = _docs("keepalive_line")
    assert doc.ref == str(decision.pk)
    assert doc.subject == "keepalive_decision"
    assert doc.link == "/prkeepalive/acme/widgets/pull/7/"
    assert doc.title == "acme/widgets#7"
    assert "every condition holds" in doc.text
    assert doc.flags == " ok "


def test_scenario_outputs_are_indexed_with_run_suite_and_flags(
    settings: Any, tmp_path: Any
) -> None:
    from tests.reviews.subjects_support import scenario_run, suites_private

    run = scenario_run(suites_private(settings, tmp_path))
    index_pass()
    docs = _docs("scenario_output")
    assert docs
    doc = docs[0]
    run_id, _, case_id = doc.ref.partition("/")
    assert run_id == run.run_id and doc.run_id == run.run_id
    assert doc.subject == "scenario_result" and doc.subject_ref == doc.ref
    assert doc.suite_id == run.benchmark.benchmark_id
    assert doc.link == f"/evals/runs/{run_id}/scenarios/{case_id}/"
    assert doc.text


def _score(
    config: Any, *, author: Any, comment: str, item: Any = None, **kw: Any
) -> Any:
    from reviews.models import Score

    return Score.objects.create(
        config=config,
        kind=kw.pop("kind", "thought"),
        ref=kw.pop("ref", "1"),
        value_number=kw.pop("value", 3),
        comment=comment,
        source="review",
        author=author,
        item=item,
        **kw,
    )


def test_review_comments_are_indexed_and_follow_edits(owner: Any) -> None:
    from reviews.services.configs import config_create

    config = config_create(name="quality", kind="numeric", min_value=1, max_value=5)
    score = _score(config, author=owner, comment="The creeper reasoning is sloppy")
    _score(config, author=owner, comment="", ref="2")
    index_pass()
    (doc,) = _docs("review_comment")
    assert (doc.ref, doc.subject, doc.subject_ref) == (
        f"score/{score.pk}",
        "thought",
        "1",
    )
    assert doc.queue_id is None
    score.comment = "Rewritten: careful about zombies"
    score.save()
    index_pass()
    (doc,) = _docs("review_comment")
    assert doc.text == "Rewritten: careful about zombies"


def test_assignment_comments_carry_their_queue(owner: Any, member: Any) -> None:
    from django.utils import timezone

    from reviews.models import ReviewAssignment, ReviewItem
    from reviews.services.configs import config_create
    from tests.reviews.reviews_support import queue_make

    queue = queue_make([config_create(name="q", kind="boolean")], [member])
    item = ReviewItem.objects.create(queue=queue, kind="thought", ref="9", title="t")
    pending = ReviewAssignment.objects.create(
        item=item, reviewer=member, comment="draft"
    )
    index_pass()
    assert _docs("review_comment") == []  # not finished yet
    pending.status = "done"
    pending.finished_at = timezone.now()
    pending.save()
    index_pass()
    (doc,) = _docs("review_comment")
    assert (doc.ref, doc.queue_id, doc.text) == (
        f"assignment/{pending.pk}",
        queue.pk,
        "draft",
    )


def test_rebuild_forgets_and_indexes_everything_again(agent: Any) -> None:
    thought_make(agent, "one")
    index_pass()
    SearchDocument.objects.update(text="stale")
    result = rebuild()
    assert result.written == {"thought": 1}
    assert SearchDocument.objects.get().text == "one"


def test_the_command_and_the_task_run_a_pass(agent: Any) -> None:
    thought_make(agent, "one")
    out = StringIO()
    call_command("search_index", stdout=out)
    assert out.getvalue() == "search index: 1 thought documents\n"
    out = StringIO()
    call_command("search_index", stdout=out)
    assert out.getvalue() == "search index: nothing new\n"
    thought_make(agent, "two")
    assert search_index_pass() == 1
    out = StringIO()
    call_command("search_index", "--rebuild", stdout=out)
    assert out.getvalue() == "search index: 2 thought documents\n"


def _span(n: int, *, agent: Any = None, completion: str = "") -> Any:
    from tests.builders import T0
    from traces.models import Span

    attributes = {"gen_ai.completion": completion} if completion else {}
    return Span.objects.create(
        trace_id=f"{n:032x}", span_id=f"{n:016x}", name="chat", source="otlp",
        agent=agent, request_model="gpt-4o-mini", attributes=attributes,
        started_at=T0, ended_at=T0,
    )  # fmt: skip


def test_model_completions_are_indexed_with_their_trace_page(agent: Any) -> None:
    span = _span(1, agent=agent, completion="I will mine the obsidian next")
    _span(2, agent=agent)  # not a model call: no document
    index_pass()
    (doc,) = _docs("completion")
    assert (doc.ref, doc.agent_id, doc.source_id) == (
        f"{span.trace_id}/{span.span_id}", agent.pk, span.pk,
    )  # fmt: skip
    assert doc.link == f"/traces/{span.trace_id}/"
    assert "obsidian" in doc.text and doc.title == "gpt-4o-mini completion"
    span.delete()
    _span(3, completion="later call")
    index_pass()
    assert [d.text for d in _docs("completion")] == ["later call"]


def test_a_lagging_pass_never_moves_the_watermark_back(agent: Any) -> None:
    from search.services.indexer import commit_batch
    from search.services.sources import thought_docs

    made = [thought_make(agent, f"t{i}") for i in range(3)]
    index_pass()
    commit_batch("thought", thought_docs(0, 1))  # an overlapping pass's first batch
    assert Watermark.objects.get(source="thought").last_id == made[-1].pk
