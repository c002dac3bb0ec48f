"""The dry run as an API answer: the core's explanation in wire shape.
Reads nothing, writes nothing, calls nobody."""

from __future__ import annotations

from typing import Any

from prkeepalive.core.explain import explain
from prkeepalive.core.types import DispatchDecision


def dispatch_decision_wire(d: DispatchDecision) -> dict[str, Any]:
    return {
        "ok": d.ok,
        "lane": d.lane.value,
        "reason": d.reason.value,
        "detail": d.detail,
        "prNumber": d.pr_number,
        "activationId": d.activation_id,
        "agent": d.agent,
        "headSha": d.head_sha,
        "cap": d.cap,
        "active": d.active,
        "trace": d.trace,
        "round": d.round,
        "failsJob": d.fails_job,
    }


def explain_document(document: Any) -> dict[str, Any]:
    """Raises ``SchemaInvalid`` (-> 400 with every field) on a bad document."""
    out = explain(document)
    return {
        "handled": out.handled,
        "ignoredReason": out.ignored_reason,
        "decision": dispatch_decision_wire(out.decision) if out.decision else None,
        "lines": list(out.lines),
        "words": out.words,
    }
