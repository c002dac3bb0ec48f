"""docs/traces.md works as printed.

Its Python example (the first ``python`` block) runs in a subprocess with the
project's interpreter against a live server, with a key made by the
``create_agent`` command the page prints, and its span is stored, priced;
its curl body is taken and its span read back; its ``load_prices`` lines
load; its attribute table names every attribute the OTLP mapping reads; its
price file example is a valid price table.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from traces.core.otlp_map import (
    CONTENT_ATTRIBUTES,
    FIELD_ATTRIBUTES,
    INVOCATION_PARAMETERS,
    OPENINFERENCE_KIND,
    OPENINFERENCE_OPERATIONS,
    REQUEST_PARAMS,
)
from traces.core.prices import price_table_from_text
from traces.models import Span
from traces.services.pricing import price_file_read, price_table_load

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "traces.md"
DOCS_SERVER = "http://127.0.0.1:8000"


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def fenced(language: str) -> list[str]:
    """The bodies of the page's fenced blocks in ``language``, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", doc_text(), re.S | re.M)


def printed_command(start: str) -> list[str]:
    """The arguments of the first ``sh`` line starting with ``start``."""
    for block in fenced("sh"):
        for line in block.splitlines():
            if line.startswith(start):
                return shlex.split(line.split("#")[0])
    raise AssertionError(f"docs/traces.md prints no command starting {start!r}")


def key_from_create_agent() -> str:
    """A key made by the ``create_agent`` command exactly as the page prints it."""
    argv = printed_command("python manage.py create_agent")
    out = io.StringIO()
    call_command(*argv[2:], stdout=out)
    found = re.search(r"api key \(shown once, store it now\): (\S+)", out.getvalue())
    assert found, out.getvalue()
    return found.group(1)


@pytest.fixture
def demo_user(db: None) -> Any:
    return get_user_model().objects.create_user("demo", is_staff=True)


@pytest.mark.django_db(transaction=True)
def test_the_python_example_sends_a_span_that_is_stored_and_priced(
    live_server: Any, demo_user: Any, tmp_path: Path
) -> None:
    # A transactional test starts from an emptied database: the shipped
    # table its migration loaded is loaded again (a serialized rollback
    # would restore it, but clashes with content types that an earlier
    # transactional test left recreated).
    price_table_load(price_file_read(ROOT / "traces" / "prices" / "prices.json"))
    example = fenced("python")[0]
    assert DOCS_SERVER in example
    code = example.split("\n\n", 2)[2].splitlines()  # after the imports
    assert len([line for line in code if not line.lstrip().startswith("#")]) <= 12
    script = tmp_path / "agent_example.py"
    script.write_text(example.replace(DOCS_SERVER, live_server.url), encoding="utf-8")
    key = key_from_create_agent()

    done = subprocess.run(  # noqa: S603 - the project's interpreter, our file
        [sys.executable, str(script)],
        env={**os.environ, "EVALSITE_KEY": key},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert "Failed to export" not in done.stderr, done.stderr
    span = Span.objects.get()
    assert span.agent is not None and span.agent.name == "my-agent"
    assert (span.name, span.source) == ("chat gpt-4o-mini", "otlp")
    assert (span.operation, span.provider) == ("chat", "openai")
    assert (span.request_model, span.response_model) == (
        "gpt-4o-mini",
        "gpt-4o-mini-2024-07-18",
    )
    assert (span.input_tokens, span.output_tokens) == (1200, 85)
    assert span.cached_input_tokens is None
    assert span.attributes.get("service.name") == "my-agent"
    # 1,200 x $0.15 + 85 x $0.60 per 1M tokens (the shipped gpt-4o-mini rule).
    assert span.cost_source == "computed"
    assert span.cost_usd == Decimal("0.000231")


def curl_body() -> str:
    """The JSON body of the page's first ``curl ... -d '...'`` example."""
    for block in fenced("sh"):
        found = re.search(r"-d '(\{.*?\})'", block, re.S)
        if found:
            return found.group(1)
    raise AssertionError("docs/traces.md has no curl example with a JSON body")


def test_the_curl_example_is_taken_and_its_span_read_back(demo_user: Any) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key_from_create_agent()}")
    body = curl_body().encode()

    first = client.generic("POST", "/v1/traces", body, content_type="application/json")
    again = client.generic("POST", "/v1/traces", body, content_type="application/json")

    assert first.status_code == 200, first.content
    assert first.json() == {}
    assert again.status_code == 200 and again.json() == {}
    span = Span.objects.get()
    assert (span.trace_id, span.span_id) == (
        "5b8efff798038103d269b633813fc60c",
        "eee19b7ec3c1b174",
    )
    assert (span.input_tokens, span.output_tokens) == (1200, 85)
    assert span.latency_ms == pytest.approx(1250.0)
    read = client.get(f"/api/traces/{span.trace_id}")
    assert read.status_code == 200
    assert read.json()["totals"]["spans"] == 1


def test_the_gzip_example_body_is_taken(demo_user: Any) -> None:
    import gzip

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key_from_create_agent()}")
    block = next(b for b in fenced("sh") if "Content-Encoding: gzip" in b)
    body = re.search(r"echo '(.*?)' \| gzip", block).group(1)  # type: ignore[union-attr]

    answer = client.generic(
        "POST",
        "/v1/traces",
        gzip.compress(body.encode() + b"\n"),
        content_type="application/json",
        headers={"Content-Encoding": "gzip"},
    )

    assert answer.status_code == 200, answer.content
    assert answer.json() == {}


def test_the_load_prices_lines_load_the_shipped_table_and_a_copy(
    db: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = printed_command("python manage.py load_prices traces/")
    copy = printed_command("cp ")
    own = printed_command("python manage.py load_prices my-prices.json")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "traces" / "prices").mkdir(parents=True)
    shutil.copy(ROOT / shipped[3], tmp_path / shipped[3])
    out = io.StringIO()

    call_command(*shipped[2:], stdout=out)
    shutil.copy(copy[1], copy[2])
    call_command(*own[2:], stdout=out)

    assert "already the active table" in out.getvalue()
    assert "repriced 0 span(s)" in out.getvalue()


def test_the_attribute_table_names_every_attribute_the_mapping_reads() -> None:
    text = doc_text()
    read = {name for names in FIELD_ATTRIBUTES.values() for name in names}
    read |= set(REQUEST_PARAMS) | set(CONTENT_ATTRIBUTES)
    read |= {INVOCATION_PARAMETERS, OPENINFERENCE_KIND, *OPENINFERENCE_OPERATIONS}
    missing = sorted(
        name
        for name in read
        if f"`{name}`" not in text and f"<code>{name}</code>" not in text
    )
    assert missing == []


def test_the_price_file_example_is_a_valid_price_table() -> None:
    table = price_table_from_text(fenced("json")[0])
    assert table.version == "2026-11-01"
    assert [rule.pattern for rule in table.rules] == [
        "gpt-4o-mini*",
        "claude-3-5-haiku*",
        "*",
    ]
