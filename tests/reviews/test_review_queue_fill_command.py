"""``manage.py review_queue_fill``: each way to fill, refusals with their
field and exit code, nothing stored when refused."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from reviews.models import ReviewItem
from tests.reviews.reviews_support import (
    cases_of,
    configs_make,
    queue_make,
    run_with_cases,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def queue() -> Any:
    run_with_cases("base", {"a": True, "b": True, "c": (False, "missing_item")})
    run_with_cases("cand", {"a": False, "b": True, "c": True})
    run_with_cases("big", cases_of(10))
    return queue_make([configs_make()["quality"]], [])


def fill(*args: str) -> str:
    out = StringIO()
    call_command("review_queue_fill", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def refused(*args: str) -> tuple[int, str]:
    err = StringIO()
    with pytest.raises(CommandError) as exc:
        call_command("review_queue_fill", *args, stdout=StringIO(), stderr=err)
    return exc.value.returncode, err.getvalue()


def test_each_way_fills_the_queue(queue: Any) -> None:
    pk = str(queue.pk)
    assert fill(pk, "--sample", "30", "--run", "big") == (
        f"queue {pk} 'queue': 3 added, 0 already there\n"
    )
    assert "1 added" in fill(pk, "--hallucinations", "--run", "base")
    assert "2 added" in fill(pk, "--flips", "base...cand")
    assert "0 added, 1 already there" in fill(
        pk, "--flips", "base...cand", "--cases", "a"
    )
    assert "1 added" in fill(pk, "--subject", "scenario_result:cand/b")
    assert ReviewItem.objects.filter(queue=queue).count() == 7


def test_refusals_name_the_field_and_store_nothing(queue: Any) -> None:
    pk = str(queue.pk)
    assert refused(pk, "--hallucinations", "--run", "cand") == (
        1,
        "  rule: no scenario of run cand has a hallucination.\n",
    )
    assert refused(pk, "--flips", "base")[1] == (
        "  flips: write BASE_RUN...CANDIDATE_RUN.\n"
    )
    assert refused(pk, "--subject", "thought")[1].startswith("  subject:")
    assert refused(pk, "--subject", "thought:999999")[1].startswith("  subjects:")
    assert refused(pk, "--sample", "10", "--run", "ghost")[1].startswith("  run_id:")
    assert refused("999999", "--hallucinations", "--run", "base")[0] == 2
    assert not ReviewItem.objects.exists()


def test_the_fills_that_read_other_apps(queue: Any, owner: Any, agent: Any) -> None:
    from search.services.indexer import index_pass
    from search.services.saved import saved_search_create
    from tests.reviews.review_pages_support import thoughts_make
    from tests.reviews.subjects_support import decision_make, episode_make

    pk = str(queue.pk)
    thoughts = thoughts_make(agent, 3)  # 2026-02-03 12:00:00..02 UTC
    episode = episode_make()  # a batch of 2
    decision_make()
    index_pass()
    saved = saved_search_create(owner=owner, name="oak", query="oak", params={})

    assert "2 added" in fill(
        pk,
        "--thoughts-of",
        "alpha",
        "--as",
        "alice",
        "--since",
        "2026-02-03T12:00:01+00:00",
    )
    assert "1 added, 2 already there" in fill(
        pk, "--saved-search", str(saved.pk), "--as", "alice"
    )
    assert "1 added" in fill(pk, "--episodes", str(episode.batch_id), "--share", "50")
    assert "1 added" in fill(pk, "--decisions", "acme/widgets#7")
    assert "0 added, 1 already there" in fill(
        pk, "--decisions", "all", "--since", "2000-01-01T00:00"
    )
    kinds = sorted(ReviewItem.objects.filter(queue=queue).values_list("kind", "ref"))
    assert [k for k, _ in kinds] == [
        "episode",
        "keepalive_decision",
        "thought",
        "thought",
        "thought",
    ]
    assert {r for k, r in kinds if k == "thought"} == {str(t.pk) for t in thoughts}


def test_the_other_apps_fills_refuse_naming_the_field(
    queue: Any, owner: Any, stranger: Any, agent: Any
) -> None:
    from tests.reviews.review_pages_support import thoughts_make

    pk = str(queue.pk)
    thoughts_make(agent, 1)

    assert refused(pk, "--thoughts-of", "alpha")[1] == (
        "  as: name the user who fills the queue (--as USER).\n"
    )
    assert refused(pk, "--thoughts-of", "alpha", "--as", "charlie")[1] == (
        "  agent: there is no agent 'alpha' you can see.\n"
    )
    assert refused(
        pk, "--thoughts-of", "alpha", "--as", "alice", "--since", "yesterday"
    )[1] == ("  since: 'yesterday' is not a time like 2026-02-03T12:00.\n")
    assert refused(pk, "--saved-search", "999", "--as", "alice")[1] == (
        "  search: pick one of your saved searches.\n"
    )
    assert refused(pk, "--episodes", "999999")[1].startswith("  batch:")
    assert refused(pk, "--decisions", "acme/widgets")[1].startswith("  pull:")
    assert refused(pk, "--decisions", "all")[1] == (
        "  pull: name a pull request or a time range.\n"
    )
    assert not ReviewItem.objects.exists()
