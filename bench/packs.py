"""Stored benchmark packs and the list pages: flat with many maximal packs.

A maximal pack is what the archive limits allow: 4 extra files of just under
16 MiB each (64 MiB in all) in a tar.gz of about 1.2 MB. Everything goes
through ``POST /api/benchmarks/packs`` (the whole Django + DRF stack in
process, no socket, DEBUG off). The pages timed are those that list packs or
uploads: ``/``, ``/benchmarks/``, ``GET /api/benchmarks/packs``, the admin's
benchmark list and its invalid-upload list.

The lists show the same N rows (``--packs``, default 50) in both states, so
only what is stored differs:

1. one maximal pack and N-1 small ones (a manifest, no files), one maximal
   invalid upload (the same archive, a manifest without a title, kept for
   review) and N-1 small ones;
2. all N maximal: the small packs replaced by maximal ones under the same
   ids (``force``), the small invalid uploads deleted and N-1 maximal ones
   uploaded in their place. Each pack's files differ, so the store then holds
   2 x N x 64 MiB.

Prints one upload's wall time and traced peak (tracemalloc), the resident
memory growth, and each page's median CPU time (and wall time) per load in
both states (and, for scale, with two rows: the maximal pack and a small one
made first). Target: every page's CPU time in state 2 within 1.5x of state 1
(plus 20 ms of slack for the timer's noise); exits non-zero on a miss. CPU
time, because SQLite runs in the process and the wall clock moves with
whatever else shares the machine. SQLite in a temporary directory, pack
files under it (removed at the end).

Usage: python bench/packs.py [--packs 50] [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import random
import secrets
import shutil
import statistics
import sys
import tarfile
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MIB = 1024 * 1024
# Just under the per-file limit, so the manifest fits the 64 MiB total.
FILE_BYTES = 16 * MIB - 4096
FILES = 4
RATIO_TARGET = 1.5
SLACK_S = 0.02
PAGES = (
    "/",
    "/benchmarks/",
    "/api/benchmarks/packs",
    "/admin/evals/benchmark/",
    "/admin/evals/invalidupload/",
)


def _rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / MIB


def _member(seed: int, index: int) -> bytes:
    """16 MiB that deflate to about 270 KB: 64 varying bytes per 4 KiB."""
    noise = random.Random(seed * 10 + index).randbytes(FILE_BYTES // 64)
    out = bytearray(FILE_BYTES)
    for block in range(FILE_BYTES // 4096):
        out[block * 4096 : block * 4096 + 64] = noise[block * 64 : block * 64 + 64]
    return bytes(out)


def maximal_pack(seed: int, *, valid: bool = True) -> bytes:
    """A tar.gz pack at the limits: a manifest and 4 x 16 MiB files."""
    from evals.examples import example_manifest

    manifest = example_manifest(pack_id(seed))
    if not valid:
        del manifest["title"]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as archive:
        files = {"manifest.json": json.dumps(manifest).encode()}
        files.update({f"data/part-{i}.bin": _member(seed, i) for i in range(FILES)})
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def pack_id(seed: int) -> str:
    return f"bench-pack-{seed:03d}"


def small_pack(benchmark_id: str, *, valid: bool = True) -> bytes:
    """A manifest alone (no extra files), as a JSON file."""
    from evals.examples import example_manifest

    manifest = example_manifest(benchmark_id)
    if not valid:
        del manifest["title"]
    return json.dumps(manifest).encode()


def _upload(client, data: bytes, name: str, **fields: str) -> int:
    file = io.BytesIO(data)
    file.name = name
    response = client.post(
        "/api/benchmarks/packs", {"file": file, **fields}, secure=True
    )
    return response.status_code


def _time_pages(client, repeat: int) -> dict[str, tuple[float, float]]:
    """Each page's median (CPU seconds, wall seconds) over ``repeat`` loads.
    SQLite runs in this process, so its CPU time holds the database's work
    too, and it moves far less than the wall clock when other work shares
    the machine."""
    out = {}
    for path in PAGES:
        cpu, wall = [], []
        for _ in range(repeat):
            # A collection the uploads' garbage set off is not the page's cost.
            gc.collect()
            start = (time.process_time(), time.perf_counter())
            response = client.get(path, secure=True)
            cpu.append(time.process_time() - start[0])
            wall.append(time.perf_counter() - start[1])
            if response.status_code != 200:
                raise SystemExit(f"{path} answered {response.status_code}")
        out[path] = (statistics.median(cpu), statistics.median(wall))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-packs-"))
    (workdir / "var").mkdir()
    os.environ["EVALSITE_VAR_DIR"] = str(workdir / "var")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_DEBUG", "false")
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    warnings.filterwarnings("ignore", message="No directory at")
    try:
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command
        from django.test import Client
        from django.test.utils import override_settings

        # Pages name static files; there is no collectstatic manifest here.
        storages = {
            **settings.STORAGES,
            "staticfiles": {
                "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
            },
        }
        override_settings(STORAGES=storages).enable()
        call_command("migrate", verbosity=0)
        from django.contrib.auth import get_user_model

        from evals.models import InvalidUpload

        user = get_user_model().objects.create_superuser("bench", password="pw-bench")
        client = Client(HTTP_HOST="localhost")
        client.force_login(user)

        print(f"building {2 * args.packs - 1} maximal packs ...", flush=True)
        start = time.perf_counter()
        valid = [maximal_pack(n) for n in range(args.packs)]
        invalid = [maximal_pack(1000 + n, valid=False) for n in range(args.packs)]
        print(
            f"  {len(valid[0]) / MIB:.2f} MiB archive for {FILES} x "
            f"{FILE_BYTES / MIB:.0f} MiB; built in {time.perf_counter() - start:.1f} s"
        )

        _upload(client, small_pack("warm-up"), "warm.json")  # lazy imports
        rss_before = _rss_mib()
        tracemalloc.start()
        start = time.perf_counter()
        code = _upload(client, valid[0], "pack-000.tar.gz")
        upload_s = time.perf_counter() - start
        _, traced_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        if code != 201:
            raise SystemExit(f"upload answered {code}")
        start = time.perf_counter()
        if _upload(client, invalid[0], "invalid-000.tar.gz") != 400:
            raise SystemExit("the invalid upload was not refused")
        invalid_s = time.perf_counter() - start
        print(
            f"one maximal upload: {upload_s:.2f} s under tracemalloc, traced peak "
            f"{traced_peak / MIB:.1f} MiB; an invalid one kept for review: "
            f"{invalid_s:.2f} s; resident growth after both "
            f"{_rss_mib() - rss_before:+.0f} MiB"
        )
        _time_pages(client, 1)  # warm caches, templates, connections
        single = _time_pages(client, args.repeat)

        for n in range(1, args.packs):
            if _upload(client, small_pack(pack_id(n)), f"p{n}.json") != 201:
                raise SystemExit(f"small upload {n} failed")
            if _upload(client, small_pack(f"bad-{n}", valid=False), "b.json") != 400:
                raise SystemExit(f"small invalid upload {n} was not refused")
        os.sync()
        _time_pages(client, 1)
        one = _time_pages(client, args.repeat)

        start = time.perf_counter()
        small_uploads = list(
            InvalidUpload.objects.filter(filename="b.json").values_list("pk", flat=True)
        )
        for n in range(1, args.packs):
            code = _upload(client, valid[n], f"pack-{n:03d}.tar.gz", force="true")
            if code != 200:
                raise SystemExit(f"replacing pack {n} answered {code}")
            if _upload(client, invalid[n], f"invalid-{n:03d}.tar.gz") != 400:
                raise SystemExit(f"invalid upload {n} was not refused")
        InvalidUpload.objects.filter(pk__in=small_uploads).delete()
        stored_s = time.perf_counter() - start
        stored = sum(1 for path in (workdir / "var" / "pack-files").rglob("*"))
        print(
            f"stored {args.packs - 1} more of each in {stored_s:.1f} s "
            f"({stored_s / max(1, 2 * (args.packs - 1)):.2f} s an upload); "
            f"{stored} entries in the pack file store"
        )
        # Let the disk write back what the uploads stored before timing reads.
        os.sync()
        rss_pages = _rss_mib()
        _time_pages(client, 1)
        many = _time_pages(client, args.repeat)
        print(f"resident growth over the page loads: {_rss_mib() - rss_pages:+.0f} MiB")

        failed = []
        print(
            f"\nCPU ms (wall ms) per load, median of {args.repeat}\n"
            f"{'page':28} {'2 rows':>15} {f'{args.packs} rows, 1 max':>17} "
            f"{f'{args.packs} rows, all max':>19} {'ratio':>6}"
        )
        for path in PAGES:
            ratio = many[path][0] / one[path][0]
            met = many[path][0] <= one[path][0] * RATIO_TARGET + SLACK_S
            if not met:
                failed.append(path)
            cells = [
                f"{cpu * 1000:.1f} ({wall * 1000:.0f})"
                for cpu, wall in (single[path], one[path], many[path])
            ]
            print(
                f"{path:28} {cells[0]:>15} {cells[1]:>17} {cells[2]:>19} "
                f"{ratio:5.2f}x{'' if met else '  MISSED'}"
            )
        print(
            f"\ntarget: all {args.packs} maximal within {RATIO_TARGET}x of 1 maximal "
            f"in CPU time (+{SLACK_S * 1000:.0f} ms): {'met' if not failed else 'MISSED'}"
        )
        return 1 if failed else 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
