"""What the in-process page benchmarks share: Django set up as production
runs it, on a throwaway database, and a realistic scenario artifact.

    ROOT = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(ROOT))
    from bench.bench_env import setup_django

    setup_django("evalsite_bench_run_page")

must run before anything imports Django's models.
"""

from __future__ import annotations

import os
import tempfile

FRAME = (
    "[Bot State]\nHealth: 20/20\nHunger: 19/20\nPosition: (188, 68, -65)\n"
    "Time: Day (safe)\nInventory: oak_log x12, bread x5, stone_pickaxe x1\n\n"
    "[World State]\nBiome: plains\nDimension: overworld\nWeather: clear\n"
    "Nearby: sheep x3 (6m)\n\n[Memory]\n[Recent] Planted saplings by the cabin.\n"
)


def setup_django(database: str) -> str:
    """Set Django up with production code paths (DEBUG off, hashed static
    names from collectstatic's manifest under a fresh temporary folder) and
    return that folder. On PostgreSQL the benchmark gets a throwaway
    database beside the configured one, dropped and made again: its name is
    ``database``, where ``{name}`` stands for the configured database's."""
    tmp = tempfile.mkdtemp(prefix="evalsite-bench-")
    os.environ.setdefault("EVALSITE_VAR_DIR", tmp)
    os.environ["DJANGO_DEBUG"] = "false"
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "k" * 50)
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
    os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "false"
    os.environ["DJANGO_STATIC_ROOT"] = os.path.join(tmp, "static")
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        import psycopg

        base, _, name = os.environ["DATABASE_URL"].rpartition("/")
        bench_db = database.format(name=name.split("?")[0])
        with psycopg.connect(f"{base}/postgres", autocommit=True) as pg:
            pg.execute(f'DROP DATABASE IF EXISTS "{bench_db}"')
            pg.execute(f'CREATE DATABASE "{bench_db}"')
        os.environ["DATABASE_URL"] = f"{base}/{bench_db}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
    os.environ["LOG_LEVEL"] = "WARNING"

    import django

    django.setup()
    return tmp


def scenario_artifact(
    run_id: str,
    case_id: str,
    index: int,
    passed: bool,
    *,
    kind: str = "nightfall",
    affordance: str = "allowed",
) -> dict[str, object]:
    """A scenario artifact of the harness's shape (EV-C4), about 1.5 KB."""
    return {
        "schemaVersion": 1,
        "runId": run_id,
        "suiteId": "bench-suite",
        "profile": "balanced",
        "mode": "thought_only",
        "scenario": {
            "id": case_id,
            "version": "v1",
            "sha256": f"{index:064x}",
            "stimulusKind": kind,
            "actionAffordance": affordance,
        },
        "frame": {"text": FRAME, "facts": 10, "memories": 1, "deltas": 0},
        "model": {
            "id": "scripted",
            "adapter": "scripted",
            "sampler": "standard",
            "seed": 0,
        },
        "rawOutput": "The meadow is quiet and three sheep graze nearby.",
        "thought": "The meadow is quiet and three sheep graze nearby.",
        "extractedGoal": None,
        "goalFailReason": "no_tag",
        "grounding": {"pass": None, "reason": "no_goal", "category": None},
        "convertEligible": False,
        "convertEligibleReason": "no_goal",
        "tasksCreated": None,
        "latencyMs": 400.0 + index % 200,
        "error": None,
        "pass": passed,
        "failReasons": [] if passed else ["compulsion"],
        "suiteLine": index + 1,
    }
