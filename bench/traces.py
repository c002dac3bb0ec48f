"""Span ingest over OTLP/HTTP and the run page with 10,000 spans.

    .venv/bin/python bench/traces.py            # embedded SQLite (a temp file)
    .venv/bin/python bench/traces.py --quick    # smaller sizes, a few seconds
    .venv/bin/python bench/traces.py --profile  # where the OTLP side's time goes
    DATABASE_URL=postgres://... .venv/bin/python bench/traces.py

1. spans/s through ``POST /v1/traces`` in 100-span batches (protobuf bodies
   built with opentelemetry-proto, as the SDK's exporter sends them; a key
   with the ``traces`` scope; Django's WSGI handler called as a server calls
   it, no socket) next to a raw insert of the same rows in the same run
   (``executemany`` of every column, one transaction per 100 rows; target
   ratio >= 0.5). ``Span.objects.bulk_create`` of the same rows is shown too.
2. the p95 answer time of one 100-span batch (target < 50 ms).
3. the run page (``/evals/runs/<id>/``) with 10,000 spans (100 scenarios x
   K=10, 10 model calls per case, a trace per case), staff logged in, best
   of 5 after a warm-up (target < 1 s), next to an equal run without spans;
   then, for scale only, 1,000 scenarios x K=10 with a span per case.

Inputs are made before the clock starts; DEBUG is off. Prints figures,
ratios, targets and PASS/MISS; exits 1 naming each missed target.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bench_env import setup_django  # noqa: E402

setup_django("{name}_bench_traces")

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402

URL = "/v1/traces"
BATCH = 100
RATIO_TARGET = 0.5
P95_TARGET_MS = 50.0
PAGE_TARGET_S = 1.0
PAGE_REPEATS = 5
THOUGHT = "The meadow is quiet and three sheep graze nearby."
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
MODELS = (
    ("openai", "gpt-4o-mini"),
    ("openai", "gpt-4.1"),
    ("anthropic", "claude-3-5-haiku-20241022"),
    ("ollama", "llama3.1:8b"),
)


def fake_spans(prefix: str, count: int, per_trace: int = 10) -> list[Any]:
    """``count`` chat spans (``SpanRecord``), ``per_trace`` per trace, ids
    starting with ``prefix`` (hex): the OTLP bodies' and raw rows' source."""
    from traces.core.records import SOURCE_OTLP, SpanRecord, TokenUsage

    rng, spans = random.Random(prefix), []
    for n in range(count):
        provider, model = MODELS[n % len(MODELS)]
        started, latency_ms = T0 + timedelta(seconds=n), rng.uniform(200, 3000)
        trace_id = f"{prefix}{n // per_trace:0{32 - len(prefix)}x}"
        tokens = (rng.randint(200, 4000), rng.randint(10, 800), rng.choice((0, 128)))
        spans.append(
            SpanRecord(
                trace_id=trace_id,
                span_id=f"{prefix}{n:0{16 - len(prefix)}x}",
                name=f"chat {model}",
                started_at=started,
                ended_at=started + timedelta(milliseconds=latency_ms),
                source=SOURCE_OTLP,
                kind="client",
                operation="chat",
                provider=provider,
                request_model=model,
                response_model=model,
                usage=TokenUsage(*tokens),
                latency_ms=latency_ms,
                conversation_id=trace_id[:12],
                attributes={"service.name": "bench-agent"},
            )
        )
    return spans


def otlp_body(spans: list[Any]) -> bytes:
    """An ``ExportTraceServiceRequest`` as the SDK's protobuf exporter sends it."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
    from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan

    def attr(key: str, value: str | int) -> KeyValue:
        if isinstance(value, int):
            return KeyValue(key=key, value=AnyValue(int_value=value))
        return KeyValue(key=key, value=AnyValue(string_value=value))

    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.attributes.append(attr("service.name", "bench-agent"))
    scope_spans = resource_spans.scope_spans.add()
    scope_spans.scope.name = "bench"
    for span in spans:
        values = {
            "operation.name": span.operation,
            "provider.name": span.provider,
            "request.model": span.request_model,
            "response.model": span.response_model,
            "usage.input_tokens": span.usage.input,
            "usage.output_tokens": span.usage.output,
            "usage.cache_read.input_tokens": span.usage.cached_input,
            "conversation.id": span.conversation_id,
        }
        scope_spans.spans.append(
            ProtoSpan(
                trace_id=bytes.fromhex(span.trace_id),
                span_id=bytes.fromhex(span.span_id),
                name=span.name,
                kind=ProtoSpan.SPAN_KIND_CLIENT,
                start_time_unix_nano=int(span.started_at.timestamp() * 1e9),
                end_time_unix_nano=int(span.ended_at.timestamp() * 1e9),
                attributes=[attr(f"gen_ai.{k}", v) for k, v in values.items()],
            )
        )
    return request.SerializeToString()


def span_rows(records: list[Any], agent_id: int) -> list[Any]:
    """Unsaved, priced ``Span`` rows of ``records``."""
    from traces.services.pricing import apply_prices
    from traces.services.spans import span_row

    rows = [span_row(record, agent_id=agent_id) for record in records]
    apply_prices(rows, records)
    return rows


def raw_insert(rows: list[Any], *, orm: bool = False) -> float:
    """Seconds to insert ``rows``, one transaction per batch: the anchor,
    every column through ``executemany``; with ``orm``, ``bulk_create``."""
    from traces.models import Span

    if orm:
        started = time.perf_counter()
        for index in range(0, len(rows), BATCH):
            with transaction.atomic():
                Span.objects.bulk_create(rows[index : index + BATCH])
        return time.perf_counter() - started
    fields = [f for f in Span._meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(Span._meta.db_table)} "
        f"({', '.join(quote(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))})"
    )
    values = [
        tuple(f.get_db_prep_save(getattr(row, f.attname), connection) for f in fields)
        for row in rows
    ]
    started = time.perf_counter()
    for index in range(0, len(values), BATCH):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.executemany(sql, values[index : index + BATCH])
    return time.perf_counter() - started


def wsgi_poster(api_key: str) -> Any:
    """``post(body) -> (status, content)`` through Django's WSGI handler, as
    a server calls it (the request factory only builds the environ)."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory

    handler = WSGIHandler()
    factory = RequestFactory(HTTP_AUTHORIZATION=f"Bearer {api_key}")

    def post(body: bytes) -> tuple[int, bytes]:
        environ = factory.generic("POST", URL, body, "application/x-protobuf").environ
        statuses: list[str] = []
        content = b"".join(handler(environ, lambda s, _h: statuses.append(s)))
        return int(statuses[0].split()[0]), content

    return post


def otlp_ingest(post: Any, bodies: list[bytes]) -> tuple[float, list[float]]:
    """(seconds in all, each answer's ms) for ``bodies`` posted in turn."""
    answers = []
    started = time.perf_counter()
    for body in bodies:
        sent = time.perf_counter()
        status, content = post(body)
        answers.append((time.perf_counter() - sent) * 1000)
        if status != 200:
            raise SystemExit(f"POST {URL} answered {status}: {content[:300]!r}")
    return time.perf_counter() - started, answers


def make_run(prefix: str, shape: tuple[int, int, int], agent_id: int | None) -> str:
    """A completed harness run of ``scenarios`` x ``epochs`` cases and, when
    ``agent_id`` is given, ``per_case`` model-call spans per case (one trace
    per case) linked to it by run and case id."""
    from evals.models import Benchmark, CaseResult, Run
    from traces.models import Span
    from traces.services.spans import span_row

    scenarios, epochs, per_case = shape
    benchmark, _ = Benchmark.objects.get_or_create(
        benchmark_id="bench-traces-suite",
        defaults={"kind": Benchmark.Kind.SUITE, "title": "bench traces"},
    )
    run_id = f"{prefix}-run"
    cases = [f"scenario-{i:05d}#{e}" for i in range(scenarios) for e in range(epochs)]
    run = Run.objects.create(
        run_id=run_id,
        benchmark=benchmark,
        status=Run.Status.COMPLETED,
        source=Run.Source.HARNESS,
        started_at=T0,
        completed_at=T0 + timedelta(minutes=20),
        **dict.fromkeys(("total_cases", "passed_cases", "progress_done"), len(cases)),
        metrics={"action_rate": 0.3, "latency_p50_ms": 444.4},
        verdict_passed=True,
    )
    details = {"schemaVersion": 1, "thought": THOUGHT, "pass": True}
    same = {
        "run": run,
        "passed": True,
        "stimulus_kind": "nightfall",
        "details": details,
    }
    CaseResult.objects.bulk_create(
        [
            CaseResult(case_id=case, latency_ms=400.0 + n % 200, **same)
            for n, case in enumerate(cases)
        ],
        batch_size=2000,
    )
    if agent_id is not None:
        records = fake_spans(prefix, len(cases) * per_case, per_case)
        linked = {"source": "harness", "run_ref": run_id}
        rows = [
            span_row(
                replace(r, case_ref=cases[n // per_case], **linked), agent_id=agent_id
            )
            for n, r in enumerate(records)
        ]
        Span.objects.bulk_create(rows, batch_size=2000)
    return run_id


def render_best(client: Any, url: str) -> tuple[float, float, int, int]:
    """(best s, median s, queries, bytes) of ``url`` over PAGE_REPEATS views
    after one warm-up view."""
    from django.test.utils import CaptureQueriesContext

    client.get(url)
    times = []
    for _ in range(PAGE_REPEATS):
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise SystemExit(f"{url} answered {response.status_code}")
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return min(times), statistics.median(times), len(queries), len(response.content)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--batches", type=int, default=None)
    parser.add_argument(
        "--only", choices=("ingest", "page"), help="measure one part only"
    )
    parser.add_argument("--profile", action="store_true", help="profile the ingest")
    args = parser.parse_args()
    batches = args.batches or (20 if args.quick else 200)
    # (scenarios, epochs, spans per case): 10,000 spans over 1,000 cases,
    # judged; then one span per case over 10,000 cases, for scale.
    shapes = [(100, 10, 10), (1000, 10, 1)]
    if args.quick:
        shapes = [(10, 10, 10), (100, 10, 1)]

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    from stream.services.agents import agent_create

    owner = get_user_model().objects.create_user("bench", is_staff=True)
    created = agent_create(name="bench-traces", owner=owner, scopes=("traces",))
    agent_id = created.agent.pk
    print(
        f"traces bench: {batches} batches of {BATCH} spans, database "
        f"{connection.vendor}; cpus={os.cpu_count()}, "
        f"load average={os.getloadavg()[0]:.2f}"
    )
    misses: list[str] = []

    if args.profile:
        profile_ingest(created.api_key, batches)
        return 0
    if args.only != "page":
        misses += measure_ingest(created.api_key, agent_id, batches)
    if args.only != "ingest":
        for n, shape in enumerate(shapes):
            misses += measure_page(owner, agent_id, shape, judged=n == 0)
    for miss in misses:
        print(f"MISSED: {miss}")
    return 1 if misses else 0


def profile_ingest(api_key: str, batches: int, top: int = 35) -> None:
    """cProfile's top functions of the OTLP side, instead of timing it."""
    import cProfile
    import pstats

    server = wsgi_poster(api_key)
    sent = fake_spans("a1", batches * BATCH)
    bodies = [otlp_body(sent[i : i + BATCH]) for i in range(0, len(sent), BATCH)]
    otlp_ingest(server, bodies[:3])
    profile = cProfile.Profile()
    profile.enable()
    otlp_ingest(server, bodies[3:])
    profile.disable()
    pstats.Stats(profile).sort_stats("cumulative").print_stats(top)
    pstats.Stats(profile).sort_stats("tottime").print_stats(top)


def measure_ingest(api_key: str, agent_id: int, batches: int) -> list[str]:
    """1 and 2: OTLP ingest against the raw insert of the same rows."""
    from traces.models import Span

    misses = []
    server = wsgi_poster(api_key)
    warm = fake_spans("f0", BATCH * 3)
    otlp_ingest(server, [otlp_body(warm[i : i + BATCH]) for i in (0, 100, 200)])
    count = batches * BATCH
    sent = fake_spans("a1", count)
    bodies = [otlp_body(sent[i : i + BATCH]) for i in range(0, count, BATCH)]
    raw_rows = span_rows(fake_spans("b2", count), agent_id)
    orm_rows = span_rows(fake_spans("c3", count), agent_id)
    raw_s = raw_insert(raw_rows)
    otlp_s, answers = otlp_ingest(server, bodies)
    orm_s = raw_insert(orm_rows, orm=True)
    stored = Span.objects.filter(trace_id__startswith="a1").count()
    if stored != count:
        misses.append(f"ingest stored {stored} of {count} spans")
    raw_rate, otlp_rate, orm_rate = count / raw_s, count / otlp_s, count / orm_s
    ratio = otlp_rate / raw_rate
    p50 = statistics.median(answers)
    p95 = statistics.quantiles(answers, n=100, method="inclusive")[94]
    print(f"raw insert (executemany, anchor): {raw_rate:10,.0f} spans/s")
    print(
        f"ORM bulk_create of the same rows:  {orm_rate:10,.0f} spans/s "
        f"(OTLP / bulk_create {otlp_rate / orm_rate:.2f})"
    )
    print(f"POST {URL} (protobuf):     {otlp_rate:10,.0f} spans/s; stored {stored}")
    print(
        f"OTLP / raw insert: {ratio:.3f}  target >= {RATIO_TARGET}  "
        f"{verdict(ratio >= RATIO_TARGET)}"
    )
    print(
        f"100-span batch answer: p50 {p50:.1f} ms, p95 {p95:.1f} ms  "
        f"target p95 < {P95_TARGET_MS:.0f} ms  {verdict(p95 < P95_TARGET_MS)}"
    )
    if ratio < RATIO_TARGET:
        misses.append(f"OTLP ingest {ratio:.3f} of the raw insert (< {RATIO_TARGET})")
    if p95 >= P95_TARGET_MS:
        misses.append(f"p95 answer {p95:.1f} ms (>= {P95_TARGET_MS:.0f} ms)")
    return misses


def measure_page(
    owner: object, agent_id: int, shape: tuple[int, int, int], *, judged: bool
) -> list[str]:
    """3: the run page of a run with spans, against the same run without."""
    from django.test import Client

    scenarios, epochs, per_case = shape
    spans_n = scenarios * epochs * per_case
    started = time.perf_counter()
    with_spans = make_run(f"{per_case:x}d", shape, agent_id)
    without = make_run(f"{per_case:x}e", shape, None)
    print(
        f"\nrun page, {scenarios:,} scenarios x K={epochs}, {per_case} span(s) per "
        f"case: {spans_n:,} spans (stored in {time.perf_counter() - started:.1f} s)"
    )
    client = Client()
    client.force_login(owner)
    best, median, queries, size = render_best(client, f"/evals/runs/{with_spans}/")
    ref = render_best(client, f"/evals/runs/{without}/")
    print(
        f"  without spans (reference): best {ref[0]:.3f} s, median {ref[1]:.3f} s, "
        f"{ref[2]} queries, {ref[3]:,} bytes"
    )
    print(
        f"  with spans:                best {best:.3f} s, median {median:.3f} s, "
        f"{queries} queries, {size:,} bytes ({best / ref[0]:.2f}x the reference)"
    )
    if not judged:
        print("  (shown for scale; the target is judged on the run above)")
        return []
    print(
        f"  warm best of {PAGE_REPEATS}: {best:.3f} s  target < "
        f"{PAGE_TARGET_S:.0f} s  {verdict(best < PAGE_TARGET_S)}"
    )
    if best >= PAGE_TARGET_S:
        return [f"run page with {spans_n:,} spans {best:.3f} s (>= 1 s)"]
    return []


if __name__ == "__main__":
    sys.exit(main())
