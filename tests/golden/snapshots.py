"""Recording API answers and comparing them with the golden files.

An answer is kept as ``{name, request: {method, path, body}, status, headers,
body}``. Only what is truly random is masked (``mask``); everything else is
compared exactly. The request is kept too, so a changed example document
shows up as a changed request, not as a mysterious change of answer.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ANSWERS = Path(__file__).resolve().parent / "answers"

# Headers whose value is part of the contract; the rest (Vary, Date, cookies,
# security middleware defaults) are the framework's.
KEPT_HEADERS = (
    "Content-Type",
    "Content-Disposition",
    "Location",
    "Allow",
    "Retry-After",
    "WWW-Authenticate",
)

# Values generated at random by the code under test. Each distinct value is
# replaced by ``<kind-N>``, numbered in order of first appearance over the
# whole file, so that two places showing the same value still show the same
# placeholder (a run id in a list and in its URL, say).
RANDOM_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "uuid",
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),
    ),
    # Eval run ids: the start second, then random hex.
    ("run-id", re.compile(r"\b\d{14}-[0-9a-f]{6}\b")),
)

# Bodies that are not JSON are kept as text up to this size, else as a digest.
TEXT_LIMIT = 20_000


@dataclass
class Masker:
    """``mask(value)``: ``value`` with every random string replaced.

    ``secrets`` maps a value known to be random (an API key, its prefix) to
    its placeholder; it is replaced wherever it appears inside a string.
    Other random values are found by ``RANDOM_PATTERNS``.
    """

    secrets: dict[str, str] = field(default_factory=dict)
    seen: dict[str, str] = field(default_factory=dict)

    def _text(self, text: str) -> str:
        # Longest first, so a key is replaced before its own prefix.
        for secret in sorted(self.secrets, key=len, reverse=True):
            text = text.replace(secret, self.secrets[secret])
        for kind, pattern in RANDOM_PATTERNS:
            text = pattern.sub(lambda m, kind=kind: self._placeholder(kind, m[0]), text)
        return text

    def _placeholder(self, kind: str, value: str) -> str:
        if value not in self.seen:
            count = sum(1 for v in self.seen.values() if v.startswith(f"<{kind}-"))
            self.seen[value] = f"<{kind}-{count + 1}>"
        return self.seen[value]

    def mask(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._text(value)
        if isinstance(value, list):
            return [self.mask(item) for item in value]
        if isinstance(value, dict):
            return {self._text(k): self.mask(v) for k, v in value.items()}
        return value


def _body(response: Any) -> Any:
    content = bytes(response.content)
    content_type = response.get("Content-Type", "")
    if "json" in content_type and content:
        return json.loads(content)
    text = content.decode("utf-8", errors="replace")
    if len(content) > TEXT_LIMIT:
        return {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}
    return text


@dataclass
class Recorder:
    """Collects one golden file's exchanges, then checks or rewrites it."""

    name: str
    masker: Masker = field(default_factory=Masker)
    exchanges: list[dict[str, Any]] = field(default_factory=list)

    def call(
        self,
        label: str,
        client: Any,
        method: str,
        path: str,
        body: Any = None,
        **extra: Any,
    ) -> Any:
        """Send one request, keep its answer under ``label``, return the response."""
        if body is None:
            response = getattr(client, method)(path, **extra)
        elif isinstance(body, bytes):
            response = getattr(client, method)(
                path, data=body, content_type="application/json", **extra
            )
        else:
            response = getattr(client, method)(path, body, format="json", **extra)
        request_body = json.loads(body) if isinstance(body, bytes) else body
        self.keep(label, method, path, request_body, response)
        return response

    def keep(
        self, label: str, method: str, path: str, request_body: Any, response: Any
    ) -> None:
        headers = {h: response[h] for h in KEPT_HEADERS if response.has_header(h)}
        self.exchanges.append(
            self.masker.mask(
                {
                    "name": label,
                    "request": {
                        "method": method.upper(),
                        "path": path,
                        "body": request_body,
                    },
                    "status": response.status_code,
                    "headers": headers,
                    "body": _body(response),
                }
            )
        )

    def check(self, update: bool) -> None:
        """Rewrite the golden file (``update``) or fail with a diff against it."""
        path = ANSWERS / f"{self.name}.json"
        text = json.dumps(self.exchanges, indent=2, sort_keys=True) + "\n"
        if update:
            path.write_text(text, encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(f"no golden file {path.name}: record it with GOLDEN_UPDATE=1")
        expected = path.read_text(encoding="utf-8")
        if text == expected:
            return
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=f"golden/{path.name}",
                tofile="now",
                n=4,
            )
        )
        changed = _changed_names(json.loads(expected), self.exchanges)
        pytest.fail(
            f"API answers differ from {path.name} in {changed}\n{diff}", pytrace=False
        )


def _changed_names(
    expected: list[dict[str, Any]], actual: list[dict[str, Any]]
) -> list[str]:
    before = {e["name"]: e for e in expected}
    after = {e["name"]: e for e in actual}
    return [n for n in {**before, **after} if before.get(n) != after.get(n)]
