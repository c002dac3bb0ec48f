"""Summary lines, markers, instructions, the worker guard and branch sync."""

from __future__ import annotations

import pytest

from prkeepalive.core.instruction import (
    extract_instruction,
    parse_segments,
    render_instruction,
)
from prkeepalive.core.markers import parse_markers
from prkeepalive.core.summary import (
    dispatch_line,
    instruction_line,
    normalise_reason,
    sync_line,
    worker_line,
    wrong_author_line,
)
from prkeepalive.core.sync import decide_sync
from prkeepalive.core.types import (
    LastProcessed,
    Reason,
    SyncAction,
    SyncAttempt,
    WorkerAction,
    WorkerReason,
)
from prkeepalive.core.worker import decide_worker

HEAD = "def5678aaaabbbb"


def worker(**kw: object):  # type: ignore[no-untyped-def]
    args: dict[str, object] = {
        "pr_number": 3541,
        "head_sha": HEAD,
        "latest_instruction_id": 2012348901,
        "last_processed": LastProcessed(),
        "labels": ("agents:keepalive",),
        "other_active_runs": 0,
        "trace": "ka-3541-r3",
    }
    args.update(kw)
    return decide_worker(**args)  # type: ignore[arg-type]


# --- the example lines (golden) ----------------------------------------------


def test_example_lines_are_golden() -> None:
    assert (
        instruction_line(
            ok=True,
            author="stranske",
            comment=2012348901,
            ack=True,
            head=HEAD,
            trace="ka-3541-r3",
        )
        == "INSTRUCTION: ok=true author=stranske comment=2012348901 ack=ok head=def5678 trace=ka-3541-r3"
    )
    assert worker_line(worker(last_processed=LastProcessed(2012300000, HEAD))) == (
        "WORKER: action=execute reason=new-instruction pr=#3541 head=def5678 "
        "instr=2012348901 trace=ka-3541-r3"
    )
    done = decide_sync(
        worker_done=True,
        head_before=HEAD,
        head_after=HEAD,
        attempts=[SyncAttempt(SyncAction.UPDATE_BRANCH, True)],
        trace="ka-3541-r3",
    )
    assert (
        sync_line(done)
        == "SYNC: action=update-branch head_changed=true trace=ka-3541-r3"
    )


# --- the test matrix (orchestrator rows) --------------------------------------


def test_matrix_worker_skip_no_new_instruction_and_head_unchanged() -> None:
    d = worker(last_processed=LastProcessed(2012348901, HEAD))
    assert d.action is WorkerAction.SKIP and d.reason is WorkerReason.UNCHANGED
    assert worker_line(d).startswith(
        "WORKER: action=skip reason=no-new-instruction-and-head-unchanged pr=#3541"
    )


def test_matrix_branch_sync_escalate() -> None:
    attempts: list[SyncAttempt] = []
    steps = []
    while True:
        d = decide_sync(
            worker_done=True,
            head_before=HEAD,
            head_after=HEAD,
            attempts=attempts,
            trace="t",
        )
        if d.is_final:
            break
        assert d.next_action is not None
        steps.append(d.next_action)
        attempts.append(SyncAttempt(d.next_action, False))
    assert steps == [SyncAction.UPDATE_BRANCH, SyncAction.CREATE_PR]
    assert sync_line(d) == "SYNC: action=escalate head_changed=false trace=t"
    assert d.add_labels == ("agents:sync-required",)


# --- summary formatting rules --------------------------------------------------


def test_dispatch_line_formatting_rules() -> None:
    line = dispatch_line(
        ok=False,
        path="gate",
        reason="",
        pr=None,
        activation=None,
        agent="codex",
        head="",
        cap=2,
        active=0,
        trace="",
    )
    assert line == (
        "DISPATCH: ok=false path=gate reason=gate-failed pr=#? activation=none "
        "agent=codex head=unknown cap=2 active=0 trace=-"
    )


def test_ok_true_forces_reason_ok() -> None:
    line = dispatch_line(
        ok=True,
        path="comment",
        reason="cap-reached",
        pr=7,
        activation=1,
        agent="codex",
        head="0123456789",
        cap=2,
        active=1,
        trace="ka-7-r1",
    )
    assert " reason=ok " in line and " head=0123456 " in line


def test_ok_false_never_prints_reason_ok() -> None:
    line = dispatch_line(
        ok=False,
        path="comment",
        reason="ok",
        pr=7,
        activation=1,
        agent="codex",
        head="0123456789",
        cap=2,
        active=1,
        trace="",
    )
    assert " reason=gate-failed " in line


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("keepalive-detected", Reason.OK),
        ("run-cap-reached", Reason.CAP_REACHED),
        ("keepalive-label-missing", Reason.MISSING_LABEL),
        ("unauthorised-author", Reason.NO_HUMAN_ACTIVATION),
        ("duplicate-keepalive", Reason.LOCK_HELD),
        ("missing-trace", Reason.MARKERS_MISSING),
        ("instruction-parse-failed", Reason.INSTRUCTION_EMPTY),
        ("Lock-Held", Reason.LOCK_HELD),
        ("something-new", Reason.GATE_FAILED),
        ("", Reason.GATE_FAILED),
    ],
)
def test_reason_normalisation_table(raw: str, canonical: Reason) -> None:
    assert normalise_reason(raw) is canonical


def test_every_canonical_reason_maps_to_itself() -> None:
    for reason in Reason:
        assert normalise_reason(reason.value) is reason


def test_wrong_author_line_names_the_token_not_its_value() -> None:
    assert wrong_author_line(token="SERVICE_BOT_PAT", head=HEAD, trace="") == (
        "INSTRUCTION: ok=false reason=wrong-author token=SERVICE_BOT_PAT head=def5678 trace=-"
    )


def test_instruction_line_failure() -> None:
    assert instruction_line(
        ok=False, author="stranske", comment=None, ack=False, head="", trace="x"
    ) == (
        "INSTRUCTION: ok=false author=stranske comment=none ack=fail head=unknown trace=x"
    )


# --- markers -------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "<!-- codex-keepalive-marker --> <!-- codex-keepalive-round: 3 --> <!-- codex-keepalive-trace: ka-1-r3 -->",
        "<!-- keepalive-round: 3 -->\n<!-- keepalive-trace: ka-1-r3 -->\n@codex",
        "<!--KEEPALIVE-ROUND #3--><!-- Keepalive-Trace:ka-1-r3 -->",
        "<!-- keepalive-round:#3 -->\n<!-- codex-keepalive-trace #ka-1-r3 -->",
        "<!-- keepalive-round 3 --><!-- keepalive-trace ka-1-r3-- -->",
    ],
)
def test_markers_both_forms_case_insensitive(body: str) -> None:
    m = parse_markers(body)
    assert m.round == 3 and m.trace == "ka-1-r3" and m.is_complete


def test_markers_missing_parts() -> None:
    assert not parse_markers("@codex go").is_present
    only_sentinel = parse_markers("<!-- codex-keepalive-marker -->")
    assert only_sentinel.is_present and not only_sentinel.is_complete
    assert parse_markers("<!-- keepalive-round: 0 -->").round is None


# --- instructions ----------------------------------------------------------------


ISSUE = """Intro text.

## Scope
Fix the parser.

**Tasks**
- [ ] add a test
- [ ] fix it

Acceptance Criteria:
- CI is green

**Latest Runs:**
| Workflow / Job | Result |
## Notes
not part of it
"""


def test_extract_instruction_sections() -> None:
    assert extract_instruction(ISSUE) == (
        "#### Scope\nFix the parser.\n\n#### Tasks\n- [ ] add a test\n- [ ] fix it\n\n"
        "#### Acceptance Criteria\n- CI is green"
    )


def test_extract_prefers_the_activation_then_the_issue() -> None:
    assert extract_instruction("@codex go", ISSUE).startswith(
        "#### Scope\nFix the parser."
    )
    assert (
        extract_instruction("@codex\n### Tasks\n- only this", ISSUE)
        == "#### Tasks\n- only this"
    )
    assert extract_instruction("@codex go", "no headings") == ""
    assert parse_segments("## Scope\n\n## Tasks\n").is_empty


def test_render_instruction_shape() -> None:
    body = render_instruction(
        round=3,
        trace="ka-3541-r3",
        agent="codex",
        segments=extract_instruction(ISSUE),
        execution_info="base=main head=def5678 pr=#3541 " + "x" * 300,
    )
    lines = body.splitlines()
    assert lines[0] == (
        "<!-- codex-keepalive-marker --> <!-- codex-keepalive-round: 3 --> "
        "<!-- codex-keepalive-trace: ka-3541-r3 -->"
    )
    assert lines[1].startswith("@codex ")
    assert "#### Scope" in body and "#### Acceptance Criteria" in body
    assert "Latest Runs" not in body and "Workflow / Job" not in body
    info = [line for line in lines if "Execution info" in line][0]
    assert len(info) < 240
    assert parse_markers(body).round == 3
    assert extract_instruction(body) == extract_instruction(ISSUE)


def test_render_instruction_refuses_empty_segments() -> None:
    with pytest.raises(ValueError, match="empty"):
        render_instruction(round=1, trace="t", agent="codex", segments="  ")


# --- worker guard priorities ------------------------------------------------------


def test_worker_executes_on_new_instruction_or_moved_head() -> None:
    first = worker()
    assert (first.action, first.reason) == (
        WorkerAction.EXECUTE,
        WorkerReason.NEW_INSTRUCTION,
    )
    moved = worker(last_processed=LastProcessed(2012348901, "0000000111"))
    assert moved.action is WorkerAction.EXECUTE and "moved" in moved.detail


def test_worker_priority_blocked_then_cap_then_new() -> None:
    both = worker(labels=("agents:sync-required",), other_active_runs=9)
    assert both.reason is WorkerReason.BLOCKED and both.action is WorkerAction.SKIP
    cap = worker(other_active_runs=2)
    assert cap.reason is WorkerReason.CAP_REACHED and cap.action is WorkerAction.SKIP
    assert worker(other_active_runs=1).action is WorkerAction.EXECUTE


# --- branch sync ------------------------------------------------------------------


def test_sync_skip_when_not_done_or_head_moved() -> None:
    not_done = decide_sync(
        worker_done=False, head_before="a", head_after="a", attempts=[], trace="t"
    )
    assert sync_line(not_done) == "SYNC: action=skip head_changed=false trace=t"
    moved = decide_sync(
        worker_done=True, head_before="a", head_after="b", attempts=[], trace="t"
    )
    assert sync_line(moved) == "SYNC: action=skip head_changed=true trace=t"


def test_sync_create_pr_lands() -> None:
    attempts = [
        SyncAttempt(SyncAction.UPDATE_BRANCH, False),
        SyncAttempt(SyncAction.CREATE_PR, True),
    ]
    d = decide_sync(
        worker_done=True, head_before="a", head_after="a", attempts=attempts, trace="t"
    )
    assert sync_line(d) == "SYNC: action=create-pr head_changed=true trace=t"
