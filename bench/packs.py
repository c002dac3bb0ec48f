"""Stored benchmark packs and the list pages: flat with many maximal packs.

A maximal pack is what the archive limits allow: 4 extra files of 16 MiB
each (64 MiB in all) in a tar.gz of about 1 MB. This bench uploads such packs
through ``POST /api/benchmarks/packs`` (the whole Django + DRF stack in
process, no socket, DEBUG off), and the same archive with an invalid manifest
(kept for staff review), then times the pages that list them: ``/``,
``/benchmarks/``, ``GET /api/benchmarks/packs``, the admin's benchmark list
and its invalid-upload list; first with 1 stored of each, then with
``--packs`` (default 50). Each pack's files differ (no two share a stored
file), so the store holds ``--packs`` x 64 MiB of each kind.

Prints the upload's wall time, its traced peak (tracemalloc, one upload),
the process's resident memory growth, and each page's median time with 1
and with N stored. Target: every page with N stored within 1.5x of its time
with 1 (plus 20 ms of slack for the timer's noise). Exits non-zero on a
miss. SQLite in a temporary directory; pack files under it.

Usage: python bench/packs.py [--packs 50] [--repeat 5]
"""

from __future__ import annotations

import argparse
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

    manifest = example_manifest(f"bench-pack-{seed:03d}")
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


def _upload(client, data: bytes, name: str) -> int:
    file = io.BytesIO(data)
    file.name = name
    response = client.post("/api/benchmarks/packs", {"file": file}, secure=True)
    if response.status_code >= 400 and os.environ.get("BENCH_VERBOSE"):
        print(response.content[:500])
    return response.status_code


def _time_pages(client, repeat: int) -> dict[str, float]:
    out = {}
    for path in PAGES:
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            response = client.get(path, secure=True)
            times.append(time.perf_counter() - start)
            if response.status_code != 200:
                raise SystemExit(f"{path} answered {response.status_code}")
        out[path] = statistics.median(times)
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

        user = get_user_model().objects.create_superuser("bench", password="pw-bench")
        client = Client(HTTP_HOST="localhost")
        client.force_login(user)

        print(f"building {args.packs} maximal packs ...", flush=True)
        start = time.perf_counter()
        valid = [maximal_pack(n) for n in range(args.packs)]
        invalid = [maximal_pack(1000 + n, valid=False) for n in range(args.packs)]
        print(
            f"  {len(valid[0]) / MIB:.2f} MiB archive for {FILES} x "
            f"{FILE_BYTES / MIB:.0f} MiB; built in {time.perf_counter() - start:.1f} s"
        )

        rss_before = _rss_mib()
        tracemalloc.start()
        start = time.perf_counter()
        code = _upload(client, valid[0], "pack-000.tar.gz")
        upload_s = time.perf_counter() - start
        _, traced_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        if code != 201:
            raise SystemExit(f"upload answered {code}")
        code = _upload(client, invalid[0], "invalid-000.tar.gz")
        if code != 400:
            raise SystemExit(f"invalid upload answered {code}")
        print(
            f"upload of one maximal pack: {upload_s:.2f} s (traced), traced peak "
            f"{traced_peak / MIB:.1f} MiB, resident growth "
            f"{_rss_mib() - rss_before:+.0f} MiB after it and one invalid upload"
        )

        _time_pages(client, 1)  # warm caches, templates, connections
        one = _time_pages(client, args.repeat)
        start = time.perf_counter()
        for n in range(1, args.packs):
            if _upload(client, valid[n], f"pack-{n:03d}.tar.gz") != 201:
                raise SystemExit(f"upload {n} failed")
            if _upload(client, invalid[n], f"invalid-{n:03d}.tar.gz") != 400:
                raise SystemExit(f"invalid upload {n} was not refused")
        stored_s = time.perf_counter() - start
        print(
            f"stored {args.packs - 1} more of each in {stored_s:.1f} s "
            f"({stored_s / max(1, 2 * (args.packs - 1)):.2f} s an upload)"
        )
        rss_pages = _rss_mib()
        many = _time_pages(client, args.repeat)
        print(f"resident growth over the page loads: {_rss_mib() - rss_pages:+.0f} MiB")

        failed = []
        print(
            f"\n{'page':32} {'1 stored':>10} {f'{args.packs} stored':>11} {'ratio':>7}"
        )
        for path in PAGES:
            ratio = many[path] / one[path]
            met = many[path] <= one[path] * RATIO_TARGET + SLACK_S
            if not met:
                failed.append(path)
            print(
                f"{path:32} {one[path] * 1000:8.1f}ms {many[path] * 1000:9.1f}ms "
                f"{ratio:6.2f}x{'' if met else '  MISSED'}"
            )
        print(
            f"\ntarget: {args.packs} stored within {RATIO_TARGET}x of 1 stored "
            f"(+{SLACK_S * 1000:.0f} ms): {'met' if not failed else 'MISSED'}"
        )
        return 1 if failed else 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
