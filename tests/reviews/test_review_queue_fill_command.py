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
