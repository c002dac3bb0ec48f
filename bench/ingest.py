"""Shadow ingest over REST, next to the same database's raw insert rate.

Records/s through ``POST /api/benchmarks/shadow`` (batches of ``--batch``
records, agent-key auth, the whole Django + DRF stack in process, no
socket) next to the raw insert rate of the same database in the same run
(``executemany`` of the same rows, one transaction per batch), and their
ratio (aim >= 0.5). Both sides get their input ready before the clock
starts: the anchor its adapted rows, the REST side its request bodies
(JSON bytes, as a client sends them); everything the server does with a
body (parse, check, validate, look up, insert, answer) is timed. DEBUG is
off, as deployed (DJANGO_DEBUG=true to see it on).

SQLite in a temporary directory unless DATABASE_URL names another database
(rows with a per-run trace-id prefix are added to it). ``--profile`` prints
cProfile's top functions of the REST side instead of timing it.

Usage: python bench/ingest.py [--records 20000] [--batch 500] [--repeat 1]
       [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals.examples import example_shadow_record  # noqa: E402

URL = "/api/benchmarks/shadow"
RATIO_TARGET = 0.5


@dataclass(frozen=True, slots=True)
class Timing:
    wall: float
    cpu: float


def _clocks() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), usage.ru_utime + usage.ru_stime


def _since(start: tuple[float, float]) -> Timing:
    now = _clocks()
    return Timing(now[0] - start[0], now[1] - start[1])


def shadow_document(prefix: str, n: int) -> dict[str, object]:
    day = f"2026-03-{1 + n % 28:02d}"
    return example_shadow_record(
        f"{prefix}{n:012x}",
        recordedAt=f"{day}T10:{n % 60:02d}:00.000Z",
        promptHash=f"{n:016x}",
        retrievalQueryHash=f"{n:016x}",
    )


def _setup_django(var_dir: Path) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    # As deployed: DEBUG off (with it on, Django also logs every query's SQL
    # text, which costs both sides but the REST side more: more queries).
    os.environ.setdefault("DJANGO_DEBUG", "false")
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    os.environ["EVALSITE_VAR_DIR"] = str(var_dir)
    os.environ["EVAL_HARNESS_ENABLED"] = "true"
    os.environ["EVAL_SHADOW_MODE_ENABLED"] = "true"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def raw_insert(documents: list[dict[str, object]], batch: int) -> Timing:
    """The anchor: the same rows through ``executemany``, no validation."""
    from datetime import UTC, date, datetime

    from django.db import connection, transaction

    from evals.models import ShadowRecord

    fields = {f.name: f for f in ShadowRecord._meta.concrete_fields}
    table = ShadowRecord._meta.db_table
    columns = ("trace_id", "recorded_at", "day", "document", "created_at")
    sql = (
        f"INSERT INTO {connection.ops.quote_name(table)} "
        f"({', '.join(connection.ops.quote_name(c) for c in columns)}) "
        f"VALUES ({', '.join(['%s'] * len(columns))})"
    )
    now = datetime.now(UTC)
    rows = [
        (
            document["traceId"],
            fields["recorded_at"].get_db_prep_value(
                datetime.fromisoformat(str(document["recordedAt"])), connection
            ),
            fields["day"].get_db_prep_value(
                date.fromisoformat(str(document["recordedAt"])[:10]), connection
            ),
            fields["document"].get_db_prep_value(document, connection),
            fields["created_at"].get_db_prep_value(now, connection),
        )
        for document in documents
    ]
    start = _clocks()
    for index in range(0, len(rows), batch):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.executemany(sql, rows[index : index + batch])
    return _since(start)


def ingest_client(tag: str):  # noqa: ANN201 - APIClient, imported after setup
    """An agent-key client with the ``benchmarks:write`` scope, warmed up."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from stream.services.agents import agent_create

    owner, _ = get_user_model().objects.get_or_create(username="bench-ingest")
    created = agent_create(
        name=f"bench-{os.getpid()}-{tag}",
        owner=owner,
        scopes=("benchmarks:write",),
    )
    # Not the test server's name: the bench runs with the real ALLOWED_HOSTS.
    client = APIClient(HTTP_HOST="localhost")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {created.api_key}")
    # One request first, so lazy imports and the first query are not timed.
    warm = shadow_document(f"warm-{os.getpid()}-{tag}-", 0)
    post(client, json.dumps({"records": [warm]}).encode())
    return client


def post(client, body: bytes) -> None:  # noqa: ANN001
    # secure: over HTTPS, as deployed (DEBUG off redirects plain HTTP).
    response = client.generic(
        "POST", URL, body, content_type="application/json", secure=True
    )
    if response.status_code not in (200, 201):
        raise SystemExit(f"ingest failed: {response.status_code} {response.content!r}")


def rest_bodies(documents: list[dict[str, object]], batch: int) -> list[bytes]:
    return [
        json.dumps({"records": documents[index : index + batch]}).encode()
        for index in range(0, len(documents), batch)
    ]


def rest_ingest(client, bodies: list[bytes]) -> Timing:  # noqa: ANN001
    """``POST /api/benchmarks/shadow`` with ``{"records": [...]}`` bodies."""
    start = _clocks()
    for body in bodies:
        post(client, body)
    return _since(start)


def profile_ingest(client, bodies: list[bytes], top: int = 40) -> None:  # noqa: ANN001
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.enable()
    rest_ingest(client, bodies)
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(top)
    pstats.Stats(profile).sort_stats("cumulative").print_stats(top)


def bench_ingest(
    records: int, batch: int, repeat: int = 1, profile: bool = False
) -> float:
    """The best REST / raw insert rate ratio of the runs (inf when profiling)."""
    best = 0.0
    var_dir = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    try:
        _setup_django(var_dir)
        from django.conf import settings
        from django.db import connection

        from evals.models import ShadowRecord

        print(
            f"shadow ingest: {records} records in batches of {batch}, database "
            f"{connection.vendor} ({connection.settings_dict['NAME']}), "
            f"DEBUG={settings.DEBUG}; "
            f"cpus={os.cpu_count()}, load average={os.getloadavg()[0]:.2f}"
        )
        for run in range(repeat):
            prefix = f"b{os.getpid():x}{int(time.time()):x}{run}"
            rest_docs = [shadow_document(prefix + "r", n) for n in range(records)]
            raw_docs = [shadow_document(prefix + "w", n) for n in range(records)]
            client = ingest_client(f"{run}")
            bodies = rest_bodies(rest_docs, batch)
            if profile:
                profile_ingest(client, bodies)
                return float("inf")
            raw = raw_insert(raw_docs, batch)
            rest = rest_ingest(client, bodies)
            stored = ShadowRecord.objects.filter(trace_id__startswith=prefix).count()
            raw_rate, rest_rate = records / raw.wall, records / rest.wall
            best = max(best, rest_rate / raw_rate)
            print(
                f"[{run + 1}] raw insert (executemany, anchor): {raw_rate:,.0f} "
                f"records/s (wall {raw.wall:.2f} s, cpu {raw.cpu:.2f} s)"
            )
            print(
                f"[{run + 1}] REST POST {URL}: {rest_rate:,.0f} records/s "
                f"(wall {rest.wall:.2f} s, cpu {rest.cpu:.2f} s)"
            )
            print(
                f"[{run + 1}] REST / raw insert rate: {rest_rate / raw_rate:.3f} "
                f"(cpu: {raw.cpu / rest.cpu:.3f}; aim >= 0.5; REST costs "
                f"{raw_rate / rest_rate:.1f}x the raw insert per record); "
                f"rows stored: {stored} of {2 * records}"
            )
    finally:
        shutil.rmtree(var_dir, ignore_errors=True)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    best = bench_ingest(args.records, args.batch, args.repeat, args.profile)
    if best < RATIO_TARGET:
        print(f"MISSED: REST / raw insert rate {best:.3f} < {RATIO_TARGET}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
