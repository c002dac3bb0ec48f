"""Use cases of the cognitive stream that write it: percepts and thoughts
(the planner's side, the feed and acks, is ``stream.services.thought_feed``).

Contract lines (the stream contract SC-*, KA-A7, KA-A8) are logged here verbatim. Every
thought starts ``processed=false`` (SC-B3); only ``thought_feed.thoughts_ack`` sets
it (I-4). ``convertEligible`` comes from the pipeline's decision, never from the
caller, except through the dev-only injection flag (the agency contract §6.1).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.canonical import digest as canonical_digest
from core.canonical import sha256_hex
from core.errors import CoreError
from stream.core.dedup import content_hash, decide_novelty
from stream.core.eligibility import decide_eligibility
from stream.core.frames import facts_from_wire, render_frame
from stream.core.goals import goal_fail_detail
from stream.core.pipeline import evaluate_output
from stream.core.sanitizer import sanitize
from stream.core.thought_decision import ThoughtDecision, decision_to_wire
from stream.core.thought_types import AWARENESS_TYPE, is_reserved_type
from stream.core.types import (
    EligibilityDecision,
    GroundingResult,
    PromptProfile,
    SanitizeResult,
    SituationFacts,
)
from stream.models import Agent, Thought, WorldSnapshot
from stream.selectors import (
    recent_content_hashes,
)
from stream.selectors_publish import publish_reads
from stream.services.counters import (
    counters_add_stored,
    counters_get,
    counters_increment,
)
from stream.services.retention import stream_cap_enforce
from stream.services.thought_store import thoughts_store

logger = logging.getLogger(__name__)


# --- percepts ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PerceptResult:
    snapshot: WorldSnapshot
    thought: Thought | None
    suppressed: bool
    content_hash: str


def awareness_text(facts: SituationFacts) -> str:
    """A factual one-paragraph summary of a percept (no suggestions, I-1)."""
    frame = render_frame(facts, profile=PromptProfile.RICH)
    lines = [
        line.strip()
        for line in frame.text.splitlines()
        if line.strip() and not line.startswith("[")
    ]
    return "; ".join(lines)


def percept_record(
    *, agent: Agent, document: dict[str, Any], now: datetime | None = None
) -> PerceptResult:
    """Store an environmental_awareness event and its awareness thought.

    ``document`` is ``{"facts": {"bot", "world"}, "metadata"?: {"source"}}``;
    invalid facts raise ``SchemaInvalid`` before anything is written. A
    content-identical awareness within the saliency window is coalesced: the
    snapshot's time moves on, no new thought is published (KA-A7).
    """
    now = now or timezone.now()
    facts_doc = {"facts": document.get("facts")}
    facts = facts_from_wire(facts_doc)
    metadata = document.get("metadata") or {}
    source = str(metadata.get("source") or "agent")[:32]
    text = awareness_text(facts)
    digest = content_hash(text)
    facts_digest = canonical_digest(facts_doc)
    window_start = now - timedelta(milliseconds=settings.STREAM_SALIENCY_WINDOW_MS)
    with transaction.atomic():
        latest = (
            WorldSnapshot.objects.filter(agent=agent)
            .order_by("-received_at", "-pk")
            .first()
        )
        if latest is not None and latest.content_hash == facts_digest:
            WorldSnapshot.objects.filter(pk=latest.pk).update(received_at=now)
            snapshot = latest
        else:
            snapshot = WorldSnapshot.objects.create(
                agent=agent,
                facts=facts_doc,
                content_hash=facts_digest,
                source=source,
                received_at=now,
            )
        duplicate = Thought.objects.filter(
            agent=agent,
            type=AWARENESS_TYPE,
            content_hash=digest,
            created_at__gte=window_start,
        ).exists()
        if duplicate:
            counters_increment(agent=agent, signature_suppressions=1)
            logger.info(
                "[Saliency] awareness_suppressed reason=dedup window_ms=%s "
                "content_hash=%s",
                settings.STREAM_SALIENCY_WINDOW_MS,
                digest,
                extra={"agent": agent.name},
            )
            return PerceptResult(snapshot, None, True, digest)
        thought = Thought.objects.create(
            agent=agent,
            type=AWARENESS_TYPE,
            content=text,
            content_hash=digest,
            convert_eligible=False,
            eligibility_reason="percept",
            grounding_passed=None,
            novelty=Thought.Novelty.HIGH,
            source=source,
            metadata={"source": source, "snapshotId": snapshot.pk},
            created_at=now,
        )
        held = counters_add_stored(agent=agent, stored=1)
    logger.info(
        "[Cognition] thought_published processed=false", extra={"id": thought.pk}
    )
    stream_cap_enforce(agent=agent, now=now, held=held)
    return PerceptResult(snapshot, thought, False, digest)


# --- thoughts ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Evaluation:
    sanitized: SanitizeResult
    grounding: GroundingResult
    eligibility: EligibilityDecision


def evaluate(text: str, *, facts: SituationFacts | None) -> Evaluation:
    """The pipeline's decision for raw model output against the latest frame."""
    if facts is not None:
        sanitized, grounding, eligibility = evaluate_output(text, facts=facts)
        return Evaluation(sanitized, grounding, eligibility)
    sanitized = sanitize(text)
    # No frame to ground against: the tag's reason (no_goal, goal_fail:<why>)
    # or, for a goal, grounding_fail:no_frame.
    grounding = GroundingResult(False, reason="no_frame", category=None, missing=())
    return Evaluation(sanitized, grounding, decide_eligibility(sanitized, grounding))


@dataclass(frozen=True, slots=True)
class ThoughtInput:
    content: str
    type: str = "reflection"
    source: str = "agent"
    convert_eligible_claim: bool | None = None
    client_metadata: dict[str, Any] = field(default_factory=dict)
    eval_run_id: str = ""
    # An eval scenario's own stream state: content dedup and planning's
    # goalKey idempotency look only at thoughts and tasks of the same
    # scenario, so scenarios of one run never depend on each other's order.
    eval_scenario: str = ""
    novelty: str = "high"
    # The keep-alive with no model configured: record, never actionable (I-3).
    observe_only: bool = False


def dev_injection_enabled() -> bool:
    """Whether a client's ``convertEligible`` is honoured (the agency contract §6.1):
    only with ``ALLOW_DEV_THOUGHT_INJECTION`` on and DEBUG on."""
    return bool(settings.ALLOW_DEV_THOUGHT_INJECTION and settings.DEBUG)


def _metadata(
    decision: ThoughtDecision, s: SanitizeResult, item: ThoughtInput, *, fallback: bool
) -> dict[str, Any]:
    decided = decision_to_wire(decision)
    meta: dict[str, Any] = {
        "source": item.source,
        "extractedGoal": decided["extractedGoal"],
        "goalKey": decided["goalKey"],
        "goalFailReason": s.goal_fail_reason.value if s.goal_fail_reason else None,
        "goalFailDetail": goal_fail_detail(s.goal_fail_reason, s.raw_goal_tag),
        "goalTagCount": s.goal_tag_count,
        "grounding": decided["grounding"],
        "intent": s.intent,
        "intentParse": s.intent_parse.value if s.intent_parse else None,
        "sanitizerFlags": list(s.flags),
        "rawContentSha256": sha256_hex(item.content),
    }
    if fallback:
        meta["fallback"] = True
    if item.eval_run_id:
        meta["evalRunId"] = item.eval_run_id
    if item.eval_scenario:
        meta["evalScenario"] = item.eval_scenario
    if item.client_metadata:
        # Namespaced: nothing a client sends can shadow a decision key.
        meta["client"] = item.client_metadata
    return meta


def _recent_hashes(agent: Agent, *, eval_scenario: str = "") -> set[str]:
    if settings.STREAM_DEDUP_WINDOW == 0:
        return set()
    if not eval_scenario:
        return recent_content_hashes(
            agent=agent, limit=settings.STREAM_DEDUP_WINDOW, exclude_type=AWARENESS_TYPE
        )
    rows = Thought.objects.filter(agent=agent, metadata__evalScenario=eval_scenario)
    rows = (
        rows.exclude(type=AWARENESS_TYPE)
        .order_by("-created_at", "-pk")
        .values_list("content_hash", flat=True)[: settings.STREAM_DEDUP_WINDOW]
    )
    return set(rows)


def _build(
    agent: Agent,
    item: ThoughtInput,
    facts: SituationFacts | None,
    recent: set[str],
    low_seen: int,
    now: datetime,
) -> tuple[Thought, dict[str, int], bool]:
    """An unsaved Thought, the counter increments it causes, and whether a
    convertEligible=true claim had to be refused (KA-A8)."""
    if item.source == "agent" and is_reserved_type(item.type):
        raise CoreError(
            f"type {item.type!r} is reserved for thoughts the service writes",
            code="reserved_type",
        )
    evaluation = evaluate(item.content, facts=facts)
    s = evaluation.sanitized
    digest = content_hash(s.text)
    duplicate = digest in recent
    novelty = decide_novelty(
        is_duplicate=duplicate,
        has_goal=s.goal is not None,
        low_novelty_seen=low_seen,
        base_novelty=item.novelty,
    )
    eligible = evaluation.eligibility.convert_eligible
    reason = evaluation.eligibility.reason
    if duplicate and eligible:
        eligible, reason = False, "low_novelty"
    if item.observe_only and eligible:
        eligible, reason = False, "observe_only"
    refused = False
    claim = item.convert_eligible_claim
    if claim is not None and dev_injection_enabled():
        if claim and not (
            s.goal is not None and evaluation.grounding.passed and s.goal_key
        ):
            refused = True
            eligible, reason = False, "refused:requires_extractedGoal+grounding_pass"
        else:
            eligible = claim
            reason = f"dev_injected:{str(eligible).lower()}"
    elif claim is True and not eligible:
        # Injection off: the claim is ignored, and a true claim the pipeline
        # did not grant is the KA-A8 refusal all the same.
        refused = True
    decision = ThoughtDecision(
        s.goal, s.goal_key or None, evaluation.grounding, eligible, reason
    )
    thought = Thought(
        agent=agent,
        type=item.type,
        content=s.text,
        content_hash=digest,
        **decision.columns(),
        novelty=novelty.novelty,
        broadcast=novelty.broadcast,
        source=item.source,
        eval_run_id=item.eval_run_id,
        metadata=_metadata(decision, s, item, fallback=novelty.fallback),
        created_at=now,
    )
    increments = {
        "llm_calls": 1,
        "goal_tags": int(s.goal is not None),
        "intent_extractions": int(bool(s.intent) and s.intent != "none"),
        "content_suppressions": int(duplicate),
        "low_novelty_recorded": int(duplicate),
        "low_novelty_broadcast": int(duplicate and novelty.broadcast),
    }
    return thought, increments, refused


def thoughts_publish(
    *,
    agent: Agent,
    items: Sequence[ThoughtInput],
    now: datetime | None = None,
    facts: SituationFacts | None = None,
    use_latest_facts: bool = True,
) -> list[Thought]:
    """Run the pipeline on each item and store the thoughts, all or nothing.

    Grounding uses ``facts`` when given, else the agent's latest snapshot.
    Logs ``[Cognition] thought_published processed=false`` per thought and the
    KA-A8 refusal line for a refused eligibility claim.
    """
    now = now or timezone.now()
    read_facts = facts is None and use_latest_facts
    # The stream's own duplicates (items of no eval scenario) are read with
    # the facts and the counter.
    plain_hashes = settings.STREAM_DEDUP_WINDOW > 0 and any(
        not item.eval_scenario for item in items
    )
    document, low_seen, hashes = publish_reads(
        agent=agent,
        counter="low_novelty_recorded",
        facts=read_facts,
        hashes_limit=settings.STREAM_DEDUP_WINDOW if plain_hashes else 0,
        exclude_type=AWARENESS_TYPE,
    )
    if read_facts and document is not None:
        facts = facts_from_wire(document)
    recent_by_scope: dict[str, set[str]] = {"": hashes} if plain_hashes else {}
    if low_seen is None:
        low_seen = counters_get(agent=agent).low_novelty_recorded
    built: list[tuple[Thought, bool]] = []
    totals: dict[str, int] = {}
    for item in items:
        scope = item.eval_scenario
        if scope not in recent_by_scope:
            recent_by_scope[scope] = _recent_hashes(agent, eval_scenario=scope)
        recent = recent_by_scope[scope]
        thought, increments, refused = _build(agent, item, facts, recent, low_seen, now)
        recent.add(thought.content_hash)
        low_seen += increments["low_novelty_recorded"]
        for key, value in increments.items():
            totals[key] = totals.get(key, 0) + value
        built.append((thought, refused))
    held = thoughts_store(
        agent=agent, thoughts=[t for t, _ in built], increments=totals
    )
    for thought, refused in built:
        if refused:
            logger.warning(
                "[Cognition] convertEligible=true requires "
                "extractedGoal+grounding_pass id=%s",
                thought.pk,
                extra={"agent": agent.name},
            )
        logger.info(
            "[Cognition] thought_published processed=false",
            extra={"id": thought.pk, "agent": agent.name},
        )
    if built:
        # Only percepts store snapshots: their cleanup stays with them.
        stream_cap_enforce(agent=agent, now=now, snapshots=False, held=held)
    return [t for t, _ in built]
