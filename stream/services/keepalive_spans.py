"""The keep-alive loop's model calls as spans (source ``keepalive``).

One span per tick that called the model, stored through
``traces.facade.record_spans`` after the thought is published (no
transaction open, the model call long done), linked to the agent and to
the thought it produced (``thought_ref``). Its ids are derived from the
agent and the tick's time, so a tick stored twice is one span. The frame
and the raw completion are kept in the span's attributes
(``gen_ai.prompt``, ``gen_ai.completion``) only while
``TRACE_STORE_CONTENT`` is on. A span that cannot be stored is logged and
dropped: the thought is published, and the tick must not fail for it.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError

from core.times import epoch_ms
from stream.core.types import ModelCall
from traces.facade import SOURCE_KEEPALIVE, call_ids, model_call_span, record_spans

logger = logging.getLogger(__name__)


def keepalive_call_record(
    *,
    agent_id: int,
    now: datetime,
    call: ModelCall | None,
    prompt: str | None = None,
    completion: str | None = None,
    thought_id: int | None = None,
) -> bool:
    """Store the span of the tick's model ``call``; whether one was stored
    (False when there was no call, the span was already stored, or the
    database refused it)."""
    if call is None:
        return False
    keep_text = settings.TRACE_STORE_CONTENT
    record = model_call_span(
        call,
        source=SOURCE_KEEPALIVE,
        ids=call_ids("keepalive", str(agent_id), str(epoch_ms(now))),
        started_at=now,
        thought_ref=thought_id,
        prompt=prompt if keep_text else None,
        completion=completion if keep_text else None,
    )
    try:
        return record_spans([record], agent_id=agent_id).stored == 1
    except DatabaseError as exc:
        logger.warning(
            "[KeepAlive] span_not_stored reason=%s",
            type(exc).__name__,
            extra={"agent_id": agent_id},
        )
        return False
