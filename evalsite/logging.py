"""The LOGGING dict: one config for web, worker and beat.

Contract log lines of the seeds are emitted verbatim as the message. The text
format puts time, level and logger before the message and the ``extra=``
fields (agent, run id, ...) after it as ``key=value``, so the message keeps
its exact prefix and a reader still sees whose line it is; the JSON format
emits the message as ``message`` with the extra fields beside it.

Lines a periodic loop repeats every few seconds (the keep-alive's cooldown
skip, an idle planning poll) carry ``extra={"periodic": True}``; the console
shows the first of a run of them and then one per ``LOG_REPEAT_WINDOW_S``,
with ``repeated=<N>`` for the lines it left out. Captured logs (tests) see
every line: the filter sits on the console handler only.

``configure`` applies the dict (Django's ``LOGGING_CONFIG`` and the worker's
``setup_logging``). Records are made as the standard library makes them:
skipping the caller, thread and process lookups the formatters here never
write bought 1.12x log lines/s (``bench/fastpaths.py``), too little for a
switch on a private attribute of the logging module.
"""

from __future__ import annotations

import json
import logging
import logging.config
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

# Attributes every LogRecord has; anything else came in through ``extra=``.
_RESERVED = frozenset(
    logging.LogRecord("", 0, "", 0, "", (), None).__dict__.keys()
    | {"message", "asctime", "taskName"}
)
# Markers for the handlers, not fields of the line.
_MARKERS = frozenset({"periodic"})
_NOT_EXTRA = _RESERVED | _MARKERS
# str.isspace() or a quote or "=" (the regex's \s is the same set of
# characters as str.isspace()).
_NEEDS_QUOTES = re.compile(r'[\s"=]')


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields a log call passed through ``extra=``, in call order."""
    return {
        key: value
        for key, value in record.__dict__.items()
        if key not in _NOT_EXTRA and not key.startswith("_")
    }


def _text_value(value: Any) -> str:
    if type(value) is bool:
        # As the log lines write flags (processed=false, verified=true), so a
        # field the message already states is not repeated as passed=False.
        return "true" if value else "false"
    text = value if type(value) is str else str(value)
    if not text or _NEEDS_QUOTES.search(text):
        return json.dumps(text, ensure_ascii=False)
    return text


class TextFormatter(logging.Formatter):
    """``<time> <LEVEL> <logger> <message> key=value ...`` (extra fields last)."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")
        # (second, its strftime text): lines of the same second share it.
        self._stamp: tuple[int, str] = (-1, "")

    def formatTime(  # noqa: N802 (logging.Formatter's name)
        self, record: logging.LogRecord, datefmt: str | None = None
    ) -> str:
        if datefmt is not None:
            return super().formatTime(record, datefmt)
        # localtime() floors to the second, as int() does for a positive time.
        second = int(record.created)
        stamped, text = self._stamp
        if stamped != second:
            text = time.strftime(self.default_time_format, self.converter(second))
            self._stamp = (second, text)
        return self.default_msec_format % (text, record.msecs)

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info or record.exc_text or record.stack_info:
            line = super().format(record)
            message = record.message
        else:
            # logging.Formatter.format without a traceback, the same text.
            message = record.message = record.getMessage()
            record.asctime = self.formatTime(record)
            line = f"{record.asctime} {record.levelname} {record.name} {message}"
        pairs = [
            f"{k}={_text_value(v)}"
            for k, v in record.__dict__.items()
            if k not in _NOT_EXTRA and not k.startswith("_")
        ]
        # A field the message already states (run_id=... in run_finished) once.
        pairs = [pair for pair in pairs if pair not in message]
        if not pairs:
            return line
        head, sep, tail = line.partition("\n")  # a traceback stays below
        suffix = " ".join(pairs)
        return f"{head} {suffix}{sep}{tail}"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, message and extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, tz=UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        payload.update(extra_fields(record))
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        return json.dumps(payload, default=str, ensure_ascii=False)


class RepeatFilter(logging.Filter):
    """Thin out periodic INFO/DEBUG lines: one per window per (logger, line
    template, agent, run); the next one shown says how many were left out."""

    def __init__(
        self, window_s: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.window_s = window_s
        self._clock = clock
        # key -> (time shown, lines left out since)
        self._seen: dict[tuple[str, str, str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "periodic", False) or record.levelno > logging.INFO:
            return True
        if self.window_s <= 0:
            return True
        key = (
            record.name,
            str(record.msg),
            str(getattr(record, "agent", "")),
            str(getattr(record, "run_id", "")),
        )
        now = self._clock()
        shown = self._seen.get(key)
        if shown is not None and now - shown[0] < self.window_s:
            self._seen[key] = (shown[0], shown[1] + 1)
            return False
        if len(self._seen) > 10_000:  # bounded memory for many agents
            self._seen.clear()
        if shown is not None and shown[1]:
            record.repeated = shown[1]
        self._seen[key] = (now, 0)
        return True


class TaskChatterFilter(logging.Filter):
    """Leave out Celery's line for every task received, every task that
    succeeded and every beat entry sent: the beat's ticks alone wrote six a
    minute and hid the service's own lines. A task's retries, failures and
    the lines it logs itself still show; ``LOG_LEVEL=DEBUG`` shows all."""

    CHATTER = (
        "Task %(name)s[%(id)s] received",
        "Task %(name)s[%(id)s] succeeded in %(runtime)ss: %(return_value)s",
    )

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("celery."):
            return True
        message = str(record.msg)
        return message not in self.CHATTER and not message.startswith(
            "Scheduler: Sending due task "
        )


def build_logging(
    *, level: str, fmt: str, repeat_window_s: float = 60.0
) -> dict[str, Any]:
    formatter = "json" if fmt == "json" else "text"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "text": {"()": "evalsite.logging.TextFormatter"},
            "json": {"()": "evalsite.logging.JsonFormatter"},
        },
        "filters": {
            "repeats": {
                "()": "evalsite.logging.RepeatFilter",
                "window_s": repeat_window_s,
            },
            "task_chatter": {"()": "evalsite.logging.TaskChatterFilter"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": formatter,
                "filters": ["repeats"] + ([] if level == "DEBUG" else ["task_chatter"]),
            },
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django.db.backends": {"level": "WARNING"},
            "celery": {"level": level},
        },
    }


def configure(config: dict[str, Any]) -> None:
    """``logging.config.dictConfig(config)``: Django's ``LOGGING_CONFIG`` and
    the worker's ``setup_logging``, so that web, worker and beat apply the
    same dict the same way."""
    logging.config.dictConfig(config)
