"""The one-line summaries printed on the Checks page (``DISPATCH:``,
``INSTRUCTION:``, ``WORKER:``, ``SYNC:``), exactly in the contract's form.

Formatting rules, the same in every line: an empty trace prints ``-``; an
unknown PR prints ``#?``; an absent comment id prints ``none``; a head is cut
to 7 characters (``unknown`` when absent); ``ok=true`` forces ``reason=ok``;
raw reasons pass through :func:`normalise_reason`, one table, where anything
unknown becomes ``gate-failed``.
"""

from __future__ import annotations

from prkeepalive.core.types import (
    DispatchDecision,
    Reason,
    SyncDecision,
    WorkerDecision,
)

# Raw reason spellings seen in older workflow scripts -> canonical reason.
REASON_TABLE: dict[str, Reason] = {
    **{r.value: r for r in Reason},
    "success": Reason.OK,
    "keepalive-detected": Reason.OK,
    "keepalive-label-missing": Reason.MISSING_LABEL,
    "missing-keepalive-label": Reason.MISSING_LABEL,
    "gate-not-concluded": Reason.GATE_PENDING,
    "gate-not-success": Reason.GATE_FAILED,
    "gate-run-missing": Reason.GATE_FAILED,
    "gate-error": Reason.GATE_FAILED,
    "gate-missing": Reason.GATE_FAILED,
    "run-cap-reached": Reason.CAP_REACHED,
    "missing-pr": Reason.NO_LINKED_PR,
    "missing-pr-number": Reason.NO_LINKED_PR,
    "missing-activation-comment": Reason.NO_ACTIVATION_FOUND,
    "activation-comment-missing": Reason.NO_ACTIVATION_FOUND,
    "no-human-comment": Reason.NO_ACTIVATION_FOUND,
    "duplicate-keepalive": Reason.LOCK_HELD,
    "lock-failed": Reason.LOCK_HELD,
    "lock-error": Reason.LOCK_HELD,
    "missing-markers": Reason.MARKERS_MISSING,
    "missing-sentinel": Reason.MARKERS_MISSING,
    "missing-round": Reason.MARKERS_MISSING,
    "missing-trace": Reason.MARKERS_MISSING,
    "no-instruction-segment": Reason.INSTRUCTION_EMPTY,
    "instruction-missing": Reason.INSTRUCTION_EMPTY,
    "instruction-parse-failed": Reason.INSTRUCTION_EMPTY,
    "unauthorised-author": Reason.NO_HUMAN_ACTIVATION,
    "unauthorized-author": Reason.NO_HUMAN_ACTIVATION,
    "not-keepalive": Reason.NO_HUMAN_ACTIVATION,
    "automation-comment": Reason.NO_HUMAN_ACTIVATION,
    "ignored-comment-action": Reason.NO_HUMAN_ACTIVATION,
    "sync-required": Reason.BLOCKED,
}


def normalise_reason(raw: str) -> Reason:
    """Map any raw reason to the canonical list; unknown -> ``gate-failed``."""
    return REASON_TABLE.get(raw.strip().lower(), Reason.GATE_FAILED)


def fmt_trace(trace: str) -> str:
    return trace.strip() or "-"


def fmt_pr(number: int | None) -> str:
    return f"#{number}" if number is not None and number > 0 else "#?"


def fmt_id(comment_id: int | None) -> str:
    return str(comment_id) if comment_id is not None and comment_id > 0 else "none"


def fmt_head(sha: str) -> str:
    sha = sha.strip()
    return sha[:7] if sha else "unknown"


def fmt_bool(value: bool) -> str:
    return "true" if value else "false"


def dispatch_line(
    *,
    ok: bool,
    path: str,
    reason: str,
    pr: int | None,
    activation: int | None,
    agent: str,
    head: str,
    cap: int,
    active: int,
    trace: str,
) -> str:
    """``DISPATCH: ok=… path=… reason=… pr=#… activation=… agent=… head=…
    cap=… active=… trace=…``."""
    canonical = Reason.OK if ok else normalise_reason(reason)
    if not ok and canonical is Reason.OK:
        canonical = Reason.GATE_FAILED
    return (
        f"DISPATCH: ok={fmt_bool(ok)} path={path} reason={canonical.value} "
        f"pr={fmt_pr(pr)} activation={fmt_id(activation)} agent={agent or '?'} "
        f"head={fmt_head(head)} cap={cap} active={active} trace={fmt_trace(trace)}"
    )


def decision_line(decision: DispatchDecision) -> str:
    return dispatch_line(
        ok=decision.ok,
        path=decision.lane.value,
        reason=decision.reason.value,
        pr=decision.pr_number,
        activation=decision.activation_id,
        agent=decision.agent,
        head=decision.head_sha,
        cap=decision.cap,
        active=decision.active,
        trace=decision.trace,
    )


def instruction_line(
    *,
    ok: bool,
    author: str,
    comment: int | None,
    ack: bool,
    head: str,
    trace: str,
) -> str:
    """``INSTRUCTION: ok=… author=… comment=… ack=ok|fail head=… trace=…``."""
    return (
        f"INSTRUCTION: ok={fmt_bool(ok)} author={author or '?'} "
        f"comment={fmt_id(comment)} ack={'ok' if ack else 'fail'} "
        f"head={fmt_head(head)} trace={fmt_trace(trace)}"
    )


def wrong_author_line(*, token: str, head: str, trace: str) -> str:
    """``INSTRUCTION: ok=false reason=wrong-author token=<NAME> …``; ``token``
    is the name of the token variable, never its value."""
    return (
        f"INSTRUCTION: ok=false reason={Reason.WRONG_AUTHOR.value} token={token} "
        f"head={fmt_head(head)} trace={fmt_trace(trace)}"
    )


def worker_line(decision: WorkerDecision) -> str:
    return (
        f"WORKER: action={decision.action.value} reason={decision.reason.value} "
        f"pr={fmt_pr(decision.pr_number)} head={fmt_head(decision.head_sha)} "
        f"instr={fmt_id(decision.instruction_id)} trace={fmt_trace(decision.trace)}"
    )


def sync_line(decision: SyncDecision) -> str:
    return (
        f"SYNC: action={decision.action.value} "
        f"head_changed={fmt_bool(decision.head_changed)} "
        f"trace={fmt_trace(decision.trace)}"
    )
