"""A document as the indexer stores it, whatever app it came from."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from search.core.text import terms_text

# What a search document keeps of a very long text (a whole model output);
# the rest is not searchable.
MAX_TEXT_CHARS = 100_000
MAX_TITLE_CHARS = 300
MAX_FLAGS_CHARS = 200


@dataclass(frozen=True, slots=True)
class Doc:
    kind: str
    ref: str
    text: str
    created_at: datetime
    source_id: int | None = None
    subject: str = ""
    subject_ref: str = ""
    agent_id: int | None = None
    run_id: str = ""
    suite_id: str = ""
    queue_id: int | None = None
    eligible: bool | None = None
    flags: tuple[str, ...] = ()
    title: str = ""
    link: str = ""

    @property
    def stored_text(self) -> str:
        return clean(self.text)[:MAX_TEXT_CHARS]

    @property
    def terms(self) -> str:
        return terms_text(self.stored_text)


def clean(text: str) -> str:
    """``text`` without NUL characters (no database stores them in text)
    and without lone surrogates."""
    return text.replace("\x00", "").encode("utf-8", "replace").decode("utf-8")


def flags_field(flags: Iterable[str]) -> str:
    """Flags as stored: lower-case words, each with a space before and
    after (so a filter matches ``" word "``)."""
    words: list[str] = []
    for flag in flags:
        word = "".join(c if c.isalnum() or c in "-:_" else "-" for c in flag.lower())
        if word and word not in words:
            words.append(word)
    text = " ".join(words)[: MAX_FLAGS_CHARS - 2]
    return f" {text} " if text else ""


def title_of(text: str, *, limit: int = 80) -> str:
    """A short one-line title from the start of ``text``."""
    line = " ".join(clean(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "\u2026"
