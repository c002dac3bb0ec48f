"""The review pages: who sees which queue, a new queue and how it fills, a
reviewer's sitting (score, refuse a bad value, skip, second look) and the
score config pages (staff only to change)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from reviews.models import (
    ReviewAssignment,
    ReviewItem,
    ReviewQueue,
    Score,
    ScoreConfig,
    ScoreConfigAttachment,
)
from tests.builders import benchmark_make
from tests.reviews.review_pages_support import configs_make, queue_make, thoughts_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def configs() -> list[Any]:
    return configs_make()


@pytest.fixture
def queue(agent: Any, owner: Any, member: Any, configs: list[Any]) -> ReviewQueue:
    return queue_make(
        members=[owner, member], thoughts=thoughts_make(agent, 3), configs=configs
    )


def _pending(queue: ReviewQueue, user: Any) -> ReviewAssignment:
    client = Client()
    client.force_login(user)
    client.get(f"/reviews/queues/{queue.pk}/review/")
    return ReviewAssignment.objects.get(
        item__queue=queue, reviewer=user, status="pending"
    )


def _field_block(text: str, field: str) -> str:
    """The part of a form page that shows ``field`` (up to the next field)."""
    return text.split(f'id="field-{field}"')[1].split('class="field"')[0]


# -- who sees what ----------------------------------------------------------


def test_queue_list_shows_a_reviewer_only_their_queues(
    queue: ReviewQueue, owner: Any, stranger_client: Client, owner_client: Client
) -> None:
    queue_make(
        members=[], thoughts=[], configs=[ScoreConfig.objects.first()], name="Other"
    )

    mine = owner_client.get("/reviews/")
    theirs = stranger_client.get("/reviews/")

    assert mine.status_code == 200
    assert "Oak thoughts" in mine.text and "Other" not in mine.text
    assert f'href="/reviews/queues/{queue.pk}/review/"' in mine.text
    assert theirs.status_code == 200
    assert "Oak thoughts" not in theirs.text
    assert "You are not a reviewer in any queue yet" in theirs.text


def test_staff_see_every_queue_but_review_only_where_they_are_members(
    queue: ReviewQueue, staff_client: Client
) -> None:
    listing = staff_client.get("/reviews/")
    detail = staff_client.get(f"/reviews/queues/{queue.pk}/")
    sitting = staff_client.get(f"/reviews/queues/{queue.pk}/review/")

    assert "Oak thoughts" in listing.text
    assert detail.status_code == 200
    assert "You are not a reviewer of this queue" in detail.text
    assert sitting.status_code == 404


def test_a_queue_of_which_one_is_not_a_member_is_not_found(
    queue: ReviewQueue, stranger_client: Client
) -> None:
    assert stranger_client.get(f"/reviews/queues/{queue.pk}/").status_code == 404
    assert stranger_client.get(f"/reviews/queues/{queue.pk}/review/").status_code == 404
    answer = stranger_client.post(
        f"/reviews/queues/{queue.pk}/review/", {"assignment": "1", "action": "skip"}
    )
    assert answer.status_code == 404
    assert not ReviewAssignment.objects.exclude(status="pending").exists()


def test_pages_need_a_login(queue: ReviewQueue) -> None:
    for path in ("/reviews/", f"/reviews/queues/{queue.pk}/", "/reviews/configs/"):
        answer = Client().get(path)
        assert answer.status_code == 302 and "/login" in answer["Location"]


# -- the queue page ---------------------------------------------------------


def test_queue_detail_shows_progress_per_reviewer(
    queue: ReviewQueue, owner: Any, owner_client: Client
) -> None:
    assignment = _pending(queue, owner)
    owner_client.post(
        f"/reviews/queues/{queue.pk}/review/",
        {
            "assignment": assignment.pk,
            "value-helpful": "good",
            "value-quality": "4",
            "value-grounded": "yes",
        },
    )

    page = owner_client.get(f"/reviews/queues/{queue.pk}/")

    assert page.status_code == 200
    assert 'id="start-reviewing"' in page.text
    assert 'id="reviews-done">1<span class="unit"> of 3</span>' in page.text
    row = page.text.split('data-reviewer="alice"')[1].split("</tr>")[0]
    assert '<td class="done">1</td>' in row
    assert 'data-reviewer="bob"' in page.text
    assert f'href="/reviews/agreement/?queue={queue.pk}"' in page.text


# -- a reviewer's sitting ---------------------------------------------------


def test_sitting_shows_the_next_item_with_its_context_and_form(
    queue: ReviewQueue, owner_client: Client
) -> None:
    page = owner_client.get(f"/reviews/queues/{queue.pk}/review/")

    assert page.status_code == 200
    assert "thought number 0: fetch oak logs" in page.text
    assert 'name="value-helpful" value="good" data-key="1"' in page.text
    assert 'name="value-quality" value="5" data-key="5"' in page.text
    assert 'name="value-grounded" value="yes" data-key="y"' in page.text
    assert 'id="shortcut-help" hidden' in page.text
    assert "reviews/js/review.js" in page.text


def test_scoring_stores_every_config_and_moves_on(
    queue: ReviewQueue, owner: Any, owner_client: Client
) -> None:
    assignment = _pending(queue, owner)

    answer = owner_client.post(
        f"/reviews/queues/{queue.pk}/review/",
        {
            "assignment": assignment.pk,
            "action": "score",
            "value-helpful": "meh",
            "value-quality": "2",
            "value-grounded": "no",
            "comment": "  vague  ",
        },
    )

    assert answer.status_code == 302
    assert answer["Location"] == f"/reviews/queues/{queue.pk}/review/"
    stored = {
        s.config.name: (s.value_label, s.value_number, s.comment, s.author_id)
        for s in Score.objects.all()
    }
    assert stored == {
        "helpful": ("meh", None, "vague", owner.pk),
        "quality": ("", 2.0, "vague", owner.pk),
        "grounded": ("false", 0.0, "vague", owner.pk),
    }
    assignment.refresh_from_db()
    assert assignment.status == "done"
    following = owner_client.get(answer["Location"])
    assert "thought number 1" in following.text


@pytest.mark.parametrize(
    ("values", "field", "reason"),
    [
        ({"value-quality": "7"}, "quality", "the value must be between 1 and 5."),
        ({"value-quality": "abc"}, "quality", "the value must be a number."),
        (
            {"value-helpful": "great"},
            "helpful",
            "the value must be one of: good, meh, bad.",
        ),
        ({"value-grounded": "maybe"}, "grounded", "the value must be yes or no."),
        ({"value-grounded": ""}, "grounded", "a value is needed."),
    ],
)
def test_a_bad_value_is_shown_on_its_field_and_nothing_is_stored(
    queue: ReviewQueue,
    owner: Any,
    owner_client: Client,
    values: dict[str, str],
    field: str,
    reason: str,
) -> None:
    assignment = _pending(queue, owner)
    good = {"value-helpful": "good", "value-quality": "3", "value-grounded": "yes"}

    page = owner_client.post(
        f"/reviews/queues/{queue.pk}/review/",
        {"assignment": assignment.pk, **good, **values},
    )

    assert page.status_code == 400
    assert (
        f'<p class="error" role="alert" data-field="{field}">{reason}</p>' in page.text
    )
    assert page.text.count('role="alert" data-field=') == 1
    assert not Score.objects.exists()
    assignment.refresh_from_db()
    assert assignment.status == "pending"
    # What was typed is kept for the reviewer to correct.
    assert 'name="value-helpful" value="good" data-key="1" checked' in page.text or (
        field == "helpful"
    )


def test_skip_and_second_look_set_the_item_aside(
    queue: ReviewQueue, owner: Any, owner_client: Client
) -> None:
    first = _pending(queue, owner)
    owner_client.post(
        f"/reviews/queues/{queue.pk}/review/",
        {"assignment": first.pk, "action": "skip"},
    )
    second = _pending(queue, owner)
    owner_client.post(
        f"/reviews/queues/{queue.pk}/review/",
        {"assignment": second.pk, "action": "second_look", "comment": "odd goal"},
    )

    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == ("skipped", "second_look")
    assert second.comment == "odd goal"
    assert first.item_id != second.item_id
    assert not Score.objects.exists()


def test_posting_someone_elses_assignment_changes_nothing(
    queue: ReviewQueue, owner: Any, member_client: Client
) -> None:
    theirs = _pending(queue, owner)

    answer = member_client.post(
        f"/reviews/queues/{queue.pk}/review/",
        {"assignment": theirs.pk, "action": "skip"},
    )

    assert answer.status_code == 302
    theirs.refresh_from_db()
    assert theirs.status == "pending"


@pytest.mark.parametrize("assignment", ["abc", "", "-1", str(2**64), "1e3"])
def test_a_malformed_assignment_changes_nothing(
    queue: ReviewQueue, owner: Any, owner_client: Client, assignment: str
) -> None:
    _pending(queue, owner)

    answer = owner_client.post(
        f"/reviews/queues/{queue.pk}/review/",
        {"assignment": assignment, "action": "skip"},
    )

    assert answer.status_code == 302
    assert not ReviewAssignment.objects.exclude(status="pending").exists()


def test_a_comment_too_long_is_refused_on_the_comment(
    queue: ReviewQueue, owner: Any, owner_client: Client
) -> None:
    assignment = _pending(queue, owner)

    page = owner_client.post(
        f"/reviews/queues/{queue.pk}/review/",
        {"assignment": assignment.pk, "action": "skip", "comment": "x" * 10_001},
    )

    assert page.status_code == 400
    assert 'data-field="comment">the comment must be a text of at most' in page.text
    assignment.refresh_from_db()
    assert assignment.status == "pending"


def test_a_queue_number_beyond_any_row_is_not_found(owner_client: Client) -> None:
    for path in (f"/reviews/queues/{2**64}/", f"/reviews/queues/{2**64}/review/"):
        assert owner_client.get(path).status_code == 404


def test_when_nothing_is_left_the_sitting_says_so(
    agent: Any, owner: Any, owner_client: Client, configs: list[Any]
) -> None:
    empty = queue_make(members=[owner], thoughts=[], configs=configs, name="Empty")

    page = owner_client.get(f"/reviews/queues/{empty.pk}/review/")

    assert page.status_code == 200
    assert "Nothing left for you in this queue." in page.text
    assert 'id="score-form"' not in page.text


# -- a new queue ------------------------------------------------------------


def _new_queue_post(configs: list[Any], **fields: Any) -> dict[str, Any]:
    return {
        "name": "Morning review",
        "configs": [str(configs[0].pk)],
        "assignment": "round_robin",
        "overlap_percent": "0",
        "members": "alice, bob",
        "fill": "hand",
        "kind": "thought",
        **fields,
    }


def test_only_staff_may_create_a_queue(
    configs: list[Any], owner_client: Client
) -> None:
    page = owner_client.get("/reviews/queues/new")
    posted = owner_client.post("/reviews/queues/new", _new_queue_post(configs))

    assert page.status_code == 403 and posted.status_code == 403
    assert "Only staff can create review queues." in page.text
    assert not ReviewQueue.objects.exists()


def test_staff_create_a_queue_filled_by_hand(
    agent: Any, configs: list[Any], owner: Any, member: Any, staff_client: Client
) -> None:
    thoughts = thoughts_make(agent, 2)

    answer = staff_client.post(
        "/reviews/queues/new",
        _new_queue_post(configs, refs="\n".join(str(t.pk) for t in thoughts)),
    )

    queue = ReviewQueue.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == f"/reviews/queues/{queue.pk}/"
    assert set(queue.members.all()) == {owner, member}
    assert sorted(ReviewItem.objects.values_list("ref", flat=True)) == sorted(
        str(t.pk) for t in thoughts
    )
    # Round robin: one item each.
    assert sorted(
        ReviewAssignment.objects.values_list("reviewer__username", flat=True)
    ) == ["alice", "bob"]


@pytest.mark.parametrize(
    ("fields", "field", "reason"),
    [
        ({"refs": "999999"}, "refs", "1 subject(s) do not exist: thought 999999."),
        ({"refs": ""}, "refs", "paste at least one ref."),
        ({"members": "alice, nobody"}, "members", "no such reviewer: nobody."),
        (
            {"fill": "sample", "run_id": "no-such-run", "percent": "10"},
            "run_id",
            "there is no run &#x27;no-such-run&#x27;.",
        ),
        (
            {"fill": "hallucinations", "run_id": ""},
            "run_id",
            "a run id is needed.",
        ),
        ({"configs": []}, "configs", "This field is required."),
    ],
)
def test_a_queue_that_cannot_be_filled_is_refused_and_nothing_is_stored(
    agent: Any,
    configs: list[Any],
    staff_client: Client,
    fields: dict[str, Any],
    field: str,
    reason: str,
) -> None:
    (thought,) = thoughts_make(agent, 1)
    post = _new_queue_post(configs, refs=str(thought.pk))
    post.update(fields)

    page = staff_client.post("/reviews/queues/new", post)

    assert page.status_code == 400
    block = _field_block(page.text, field)
    assert f'data-field="{field}">{reason}</p>' in block
    assert not ReviewQueue.objects.exists()
    assert not ReviewItem.objects.exists()


def test_a_compare_selection_link_prefills_the_new_queue(
    configs: list[Any], staff_client: Client
) -> None:
    page = staff_client.get(
        "/reviews/queues/new?from_compare=r-base...r-cand&cases=flips"
    )

    assert page.status_code == 200
    assert "From the compare selection r-base...r-cand" in page.text
    assert 'value="compare" required id="id_fill_0" checked' in page.text
    assert 'name="compare" value="r-base...r-cand"' in page.text
    assert 'value="Review the flips of r-cand"' in page.text


def test_a_compare_selection_of_unknown_runs_is_refused(
    configs: list[Any], owner: Any, member: Any, staff_client: Client
) -> None:
    post = _new_queue_post(
        configs, fill="compare", compare="r-base...r-cand", cases="flips"
    )

    page = staff_client.post("/reviews/queues/new", post)

    assert page.status_code == 400
    block = _field_block(page.text, "fill")
    assert 'data-field="fill">there is no run &#x27;r-base&#x27;.</p>' in block
    assert not ReviewQueue.objects.exists()


# -- changing a queue -------------------------------------------------------


def test_staff_add_items_by_hand_to_a_queue(
    queue: ReviewQueue, agent: Any, staff_client: Client
) -> None:
    (extra,) = thoughts_make(agent, 1)
    first = queue.items.order_by("pk").first()

    answer = staff_client.post(
        f"/reviews/queues/{queue.pk}/fill",
        {
            "more-fill": "hand",
            "more-kind": "thought",
            "more-refs": f"{extra.pk}\n{first.ref}",
        },
    )

    assert answer.status_code == 302
    assert queue.items.count() == 4
    page = staff_client.get(answer["Location"])
    assert "1 item added, 1 already in the queue." in page.text


def test_adding_items_that_do_not_exist_is_refused_and_adds_nothing(
    queue: ReviewQueue, staff_client: Client
) -> None:
    page = staff_client.post(
        f"/reviews/queues/{queue.pk}/fill",
        {"more-fill": "hallucinations", "more-run_id": "no-such-run"},
    )

    assert page.status_code == 400
    block = _field_block(page.text, "run_id")
    assert 'data-field="run_id">there is no run &#x27;no-such-run&#x27;.</p>' in block
    assert queue.items.count() == 3


def test_staff_change_the_reviewers_and_unknown_names_are_refused(
    queue: ReviewQueue, owner: Any, member: Any, staff_client: Client
) -> None:
    refused = staff_client.post(
        f"/reviews/queues/{queue.pk}/reviewers", {"people-members": "alice ghost"}
    )
    saved = staff_client.post(
        f"/reviews/queues/{queue.pk}/reviewers", {"people-members": "alice"}
    )

    assert refused.status_code == 400
    block = _field_block(refused.text, "members")
    assert 'data-field="members">no such reviewer: ghost.</p>' in block
    assert saved.status_code == 302
    assert list(queue.members.all()) == [owner]


@pytest.mark.parametrize("path", ["fill", "reviewers"])
def test_only_staff_may_change_a_queue(
    queue: ReviewQueue, owner_client: Client, path: str
) -> None:
    answer = owner_client.post(
        f"/reviews/queues/{queue.pk}/{path}",
        {
            "more-fill": "hand",
            "more-kind": "thought",
            "more-refs": "1",
            "people-members": "",
        },
    )

    assert answer.status_code == 403
    assert "Only staff can change review queues." in answer.text
    assert queue.items.count() == 3 and queue.members.count() == 2


# -- score configs ----------------------------------------------------------


def test_config_list_and_detail_are_open_to_reviewers_without_edit_buttons(
    configs: list[Any], owner_client: Client
) -> None:
    listing = owner_client.get("/reviews/configs/")
    detail = owner_client.get("/reviews/configs/helpful/")

    assert listing.status_code == 200 and detail.status_code == 200
    assert "good, meh, bad" in listing.text
    assert "New score config" not in listing.text
    assert "New version" not in detail.text
    assert "<kbd>1</kbd> good" in detail.text


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/reviews/configs/new"),
        ("post", "/reviews/configs/new"),
        ("get", "/reviews/configs/helpful/version"),
        ("post", "/reviews/configs/helpful/version"),
        ("post", "/reviews/configs/helpful/attach"),
    ],
)
def test_only_staff_may_change_score_configs(
    configs: list[Any], owner_client: Client, method: str, path: str
) -> None:
    data = {"name": "x", "kind": "boolean", "benchmark_id": "smoke"}
    page = getattr(owner_client, method)(path, data)

    assert page.status_code == 403
    assert "Only staff can define score configs" in page.text
    assert ScoreConfig.objects.count() == 3
    assert not ScoreConfigAttachment.objects.exists()


def test_staff_create_a_config_then_a_new_version_and_attach_it(
    staff_client: Client,
) -> None:
    benchmark_make("smoke", kind="suite", title="smoke")
    created = staff_client.post(
        "/reviews/configs/new",
        {"name": "tone", "kind": "categorical", "labels": "calm\nrude\n"},
    )
    versioned = staff_client.post(
        "/reviews/configs/tone/version",
        {"name": "ignored", "kind": "categorical", "labels": "calm\nrude\nodd"},
    )
    attached = staff_client.post(
        "/reviews/configs/tone/attach", {"benchmark_id": "smoke"}
    )

    assert [created.status_code, versioned.status_code, attached.status_code] == [
        302,
        302,
        302,
    ]
    versions = list(ScoreConfig.objects.filter(name="tone").order_by("version"))
    assert [(v.version, v.labels, v.is_current) for v in versions] == [
        (1, ["calm", "rude"], False),
        (2, ["calm", "rude", "odd"], True),
    ]
    assert list(
        ScoreConfigAttachment.objects.values_list("config_name", "benchmark_id")
    ) == [("tone", "smoke")]
    detail = staff_client.get("/reviews/configs/tone/")
    assert "v2" in detail.text and "smoke" in detail.text


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        (
            {"name": "tone", "kind": "categorical", "labels": "calm"},
            "labels",
            "a categorical score needs 2 to 9 labels.",
        ),
        (
            {"name": "q", "kind": "numeric", "min_value": "5", "max_value": "1"},
            "max_value",
            "the highest value must be above the lowest.",
        ),
        (
            {"name": "Bad Name", "kind": "boolean"},
            "name",
            "the name must be 1 to 64 lowercase letters",
        ),
    ],
)
def test_a_bad_config_is_refused_naming_its_field(
    staff_client: Client, data: dict[str, str], field: str, reason: str
) -> None:
    page = staff_client.post("/reviews/configs/new", data)

    assert page.status_code == 400
    block = _field_block(page.text, field)
    assert f'data-field="{field}">{reason}' in block
    assert not ScoreConfig.objects.exists()


def test_attaching_to_an_unknown_benchmark_is_refused_and_taking_off_works(
    configs: list[Any], staff_client: Client
) -> None:
    benchmark_make("smoke", kind="suite", title="smoke")
    ScoreConfigAttachment.objects.create(config_name="helpful", benchmark_id="gone")

    page = staff_client.post(
        "/reviews/configs/helpful/attach", {"benchmark_id": "nope"}
    )
    off = staff_client.post(
        "/reviews/configs/helpful/attach", {"benchmark_id": "gone", "detach": "1"}
    )

    assert page.status_code == 400
    block = _field_block(page.text, "benchmark_id")
    assert 'data-field="benchmark_id">Select a valid choice.' in block
    assert off.status_code == 302
    assert not ScoreConfigAttachment.objects.exists()


def test_an_unknown_config_is_not_found(staff_client: Client) -> None:
    assert staff_client.get("/reviews/configs/nope/").status_code == 404
