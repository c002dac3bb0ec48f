"""The apps' own settings: the cognitive stream and keep-alive loop,
planning, the model endpoint, the eval harness and eval store, PR keepalive.

Read by ``evalsite/settings.py`` (``from evalsite.settings_apps import *``),
after the project's own sections; the same strict readers of
``evalsite/env.py``, so a malformed value stops start-up with one line.
Services are handed these values; cores never read settings.
"""

from __future__ import annotations

from core.header_list import HeaderListInvalid, parse_header_list
from evalsite.env import (
    BASE_DIR,
    env_bool,
    env_choice,
    env_commit,
    env_int,
    env_path,
    env_secret,
    env_secret_url,
    env_str,
    env_url,
    env_var_dir,
    refuse,
)
from stream.core.adapters import SAMPLERS
from stream.core.types import PromptProfile

VAR_DIR = env_var_dir()

# --- Cognitive stream and keep-alive loop (handed to services, never read by core) ---

STREAM_QUEUE_HARD_CAP = env_int("STREAM_QUEUE_HARD_CAP", 500, minimum=1)
STREAM_PROCESSED_MAX_AGE_S = env_int("STREAM_PROCESSED_MAX_AGE_S", 86400, minimum=1)
STREAM_ACTIONABLE_MAX_AGE_S = env_int("STREAM_ACTIONABLE_MAX_AGE_S", 1800, minimum=1)
STREAM_OTHER_MAX_AGE_S = env_int("STREAM_OTHER_MAX_AGE_S", 600, minimum=1)
STREAM_SALIENCY_WINDOW_MS = env_int("STREAM_SALIENCY_WINDOW_MS", 30000, minimum=0)
STREAM_DEDUP_WINDOW = env_int("STREAM_DEDUP_WINDOW", 20, minimum=0)
STREAM_MAX_ACK_IDS = env_int("STREAM_MAX_ACK_IDS", 10000, minimum=1)
STREAM_MAX_BATCH = env_int("STREAM_MAX_BATCH", 500, minimum=1)
# Dev only: honour convertEligible in POST /thoughts (system check stream.E001
# refuses it with DEBUG off).
ALLOW_DEV_THOUGHT_INJECTION = env_bool("ALLOW_DEV_THOUGHT_INJECTION", False)

KEEPALIVE_ENABLED = env_bool("KEEPALIVE_ENABLED", True)
KEEPALIVE_TICK_S = env_int("KEEPALIVE_TICK_S", 10, minimum=1)
KEEPALIVE_MIN_INTERVAL_MS = env_int("KEEPALIVE_MIN_INTERVAL_MS", 120000, minimum=0)
KEEPALIVE_HUNGER_DROP = env_int("KEEPALIVE_HUNGER_DROP", 2, minimum=0)
KEEPALIVE_HEALTH_DROP = env_int("KEEPALIVE_HEALTH_DROP", 4, minimum=0)
KEEPALIVE_MAX_REFRESH_PER_MIN = env_int("KEEPALIVE_MAX_REFRESH_PER_MIN", 2, minimum=0)
KEEPALIVE_MAX_POKES_PER_MIN = env_int("KEEPALIVE_MAX_POKES_PER_MIN", 6, minimum=1)
KEEPALIVE_PERCEPTION_MAX_AGE_MS = env_int(
    "KEEPALIVE_PERCEPTION_MAX_AGE_MS", 60000, minimum=0
)
KEEPALIVE_PROFILE = env_choice(
    "KEEPALIVE_PROFILE", "balanced", tuple(profile.value for profile in PromptProfile)
)
KEEPALIVE_MEMORY_SLICE = env_int("KEEPALIVE_MEMORY_SLICE", 8, minimum=0)
KEEPALIVE_MODEL = env_choice(
    "KEEPALIVE_MODEL", "baseline", ("baseline", "openai", "scripted")
)
KEEPALIVE_SAMPLER = env_choice("KEEPALIVE_SAMPLER", "low-variance", tuple(SAMPLERS))
KEEPALIVE_SCRIPT = env_str("KEEPALIVE_SCRIPT")
refuse(
    "KEEPALIVE_SCRIPT must name the script file when KEEPALIVE_MODEL=scripted"
    if KEEPALIVE_MODEL == "scripted" and not KEEPALIVE_SCRIPT.strip()
    else None
)
AGENCY_LOG_INTERVAL_S = env_int("AGENCY_LOG_INTERVAL_S", 60, minimum=1)

# Planning: the thought-to-task poll and the executor task store. The drive
# tick is a stream contract non-goal, so it stays off unless asked for.
DRIVE_TICK_ENABLED = env_bool("DRIVE_TICK_ENABLED", False)
# Percepts carry no game mode yet; whoever enables the drive tick states it.
DRIVE_TICK_GAME_MODE = env_str("DRIVE_TICK_GAME_MODE", "survival")
PLANNING_STRICT_FINALIZE = env_bool("PLANNING_STRICT_FINALIZE", False)
PLANNING_POLL_S = env_int("PLANNING_POLL_S", 5, minimum=1)
PLANNING_POLL_LIMIT = env_int("PLANNING_POLL_LIMIT", 100, minimum=1)
PLANNING_EXECUTOR_STALE_S = env_int("PLANNING_EXECUTOR_STALE_S", 120, minimum=1)

# OpenAI-compatible chat endpoint (Ollama, vLLM, llama.cpp server).
OPENAI_BASE_URL = env_url("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
OPENAI_MODEL = env_str("OPENAI_MODEL", "")
refuse(
    "OPENAI_MODEL must name the model when KEEPALIVE_MODEL=openai"
    if KEEPALIVE_MODEL == "openai" and not OPENAI_MODEL.strip()
    else None
)
OPENAI_API_KEY = env_secret("OPENAI_API_KEY")
OPENAI_TIMEOUT_S = env_int("OPENAI_TIMEOUT_S", 30, minimum=1)
OPENAI_MAX_RETRIES = env_int("OPENAI_MAX_RETRIES", 2, minimum=0)
# Ask the endpoint to stream (server-sent events), so calls record the time
# to the first token; the text and usage are the same either way.
OPENAI_STREAM = env_bool("OPENAI_STREAM", False)

# Eval harness: suites are read from disk on every run; bundles land under
# <EVALS_ARTIFACTS_DIR>/evals/<suite>/<profile>/<run-id>/; a run fans out in
# chunks of EVALS_CHUNK_SIZE scenarios.
# The code version eval runs record; unset: `git rev-parse HEAD` of the checkout.
EVALSITE_CODE_VERSION = env_commit("EVALSITE_CODE_VERSION")
EVALS_SUITES_DIR = env_path("EVALS_SUITES_DIR", BASE_DIR / "evals" / "suites")
EVALS_ARTIFACTS_DIR = env_path("EVALS_ARTIFACTS_DIR", BASE_DIR / "artifacts")
EVALS_CHUNK_SIZE = env_int("EVALS_CHUNK_SIZE", 25, minimum=1)

# Benchmark packs, runs, shadow records and baselines (the eval-store contract). The
# on-disk
# eval store is an import/export format of the database; the feature flags
# default off, as in the seed (`make demo` turns them on).
EVAL_STORE_DIR = env_path("EVAL_STORE_DIR", VAR_DIR / "eval-store")
# The extra files of uploaded benchmark packs, each kept once under its
# SHA-256 (the database holds names, sizes and digests). Web and worker
# processes share it, like the database.
PACK_FILES_DIR = env_path("PACK_FILES_DIR", VAR_DIR / "pack-files")
EVAL_HARNESS_ENABLED = env_bool("EVAL_HARNESS_ENABLED", False)
EVAL_SHADOW_MODE_ENABLED = env_bool("EVAL_SHADOW_MODE_ENABLED", False)
BENCHMARK_BASELINE_SNAPSHOTS_ENABLED = env_bool(
    "BENCHMARK_BASELINE_SNAPSHOTS_ENABLED", False
)
BENCHMARK_DELTA_REPORTER_ENABLED = env_bool("BENCHMARK_DELTA_REPORTER_ENABLED", False)
MEMORY_RED_TEAM_BENCH_ENABLED = env_bool("MEMORY_RED_TEAM_BENCH_ENABLED", False)

# PR keepalive: GitHub webhook intake, dispatch decisions and rounds. Tokens
# and the webhook secret are read here only to check they exist; services
# read the variables a repository names (token_ref, webhook_secret_ref).
PRKEEPALIVE_GITHUB_API_URL = env_url(
    "PRKEEPALIVE_GITHUB_API_URL", "https://api.github.com"
)
PRKEEPALIVE_WEBHOOK_SECRET = env_secret("PRKEEPALIVE_WEBHOOK_SECRET")
PRKEEPALIVE_GITHUB_TIMEOUT_S = env_int("PRKEEPALIVE_GITHUB_TIMEOUT_S", 10, minimum=1)
PRKEEPALIVE_GITHUB_RETRIES = env_int("PRKEEPALIVE_GITHUB_RETRIES", 3, minimum=0)
PRKEEPALIVE_GITHUB_MAX_WAIT_S = env_int("PRKEEPALIVE_GITHUB_MAX_WAIT_S", 10, minimum=0)
PRKEEPALIVE_RECONCILE_S = env_int("PRKEEPALIVE_RECONCILE_S", 300, minimum=10)
PRKEEPALIVE_HEAD_POLL_ATTEMPTS = env_int("PRKEEPALIVE_HEAD_POLL_ATTEMPTS", 6, minimum=1)
PRKEEPALIVE_HEAD_POLL_INTERVAL_S = env_int(
    "PRKEEPALIVE_HEAD_POLL_INTERVAL_S", 5, minimum=0
)
PRKEEPALIVE_STALE_DELIVERY_S = env_int("PRKEEPALIVE_STALE_DELIVERY_S", 600, minimum=1)
# A signed delivery with a new GUID whose event and body equal one received
# within this many seconds is a replay: recorded, answered, never processed
# (0 turns the check off). GitHub's own redeliveries keep their GUID.
PRKEEPALIVE_REPLAY_WINDOW_S = env_int("PRKEEPALIVE_REPLAY_WINDOW_S", 3600, minimum=0)

# Traces: model calls and OTLP spans (docs/traces.md). Spans older than
# TRACE_RETENTION_DAYS are deleted in batches by beat (0 keeps them forever).
TRACE_RETENTION_DAYS = env_int("TRACE_RETENTION_DAYS", 30, minimum=0)
TRACE_RETENTION_BATCH = env_int("TRACE_RETENTION_BATCH", 5000, minimum=1)
# Keep the prompt and completion text spans carry (false drops it at
# ingestion; the harness's text stays in its artifacts either way).
TRACE_STORE_CONTENT = env_bool("TRACE_STORE_CONTENT", True)
# POST /v1/traces: the largest body taken, compressed or not (413 above it).
TRACE_MAX_BODY_BYTES = env_int("TRACE_MAX_BODY_BYTES", 16 * 1024 * 1024, minimum=1024)
# Scores out: each finished run's scores as OTLP gen_ai.evaluation.result
# events to an OTLP/HTTP logs endpoint (https://collector:4318/v1/logs).
# Empty (the default) sends nothing.
OTLP_EXPORT_ENDPOINT = env_secret_url(
    "OTLP_EXPORT_ENDPOINT", ("http", "https"), "http://127.0.0.1:4318/v1/logs"
)
# Extra headers for it, "Name=value,Name2=value2" (e.g. an Authorization).
OTLP_EXPORT_HEADERS = env_secret("OTLP_EXPORT_HEADERS")
try:
    parse_header_list(OTLP_EXPORT_HEADERS, setting="OTLP_EXPORT_HEADERS")
except HeaderListInvalid as _bad_headers:
    refuse(f"{_bad_headers}; its value is not shown")
OTLP_EXPORT_TIMEOUT_S = env_int("OTLP_EXPORT_TIMEOUT_S", 10, minimum=1)
OTLP_EXPORT_RETRIES = env_int("OTLP_EXPORT_RETRIES", 3, minimum=0)
# Pending exports kept at most; when full, the oldest is marked dropped.
OTLP_EXPORT_QUEUE_MAX = env_int("OTLP_EXPORT_QUEUE_MAX", 1000, minimum=1)

# Data that ages (docs/retention.md): beat deletes old rows every hour, in
# batches of RETENTION_BATCH by key range, each batch its own short
# transaction. 0 days keeps the rows forever. Thoughts: a floor under the
# per-agent queue policy above (it also reaches agents no longer active);
# a thought is never deleted before its STREAM_*_MAX_AGE_S either. Case
# results: the cases of finished runs that started longer ago (the run, its
# counts and summary stay). Task events: those of finished tasks only.
THOUGHT_RETENTION_DAYS = env_int("THOUGHT_RETENTION_DAYS", 30, minimum=0)
STREAM_EVENT_RETENTION_DAYS = env_int("STREAM_EVENT_RETENTION_DAYS", 7, minimum=0)
TASK_EVENT_RETENTION_DAYS = env_int("TASK_EVENT_RETENTION_DAYS", 90, minimum=0)
CASE_RESULT_RETENTION_DAYS = env_int("CASE_RESULT_RETENTION_DAYS", 0, minimum=0)
RETENTION_BATCH = env_int("RETENTION_BATCH", 5000, minimum=1)
# PostgreSQL only: the thoughts table partitioned by month of created_at
# (`manage.py partition_thoughts --apply` converts it; beat then creates
# each month's partition STREAM_THOUGHT_PARTITIONS_AHEAD months ahead).
STREAM_THOUGHT_PARTITIONING = env_bool("STREAM_THOUGHT_PARTITIONING", False)
STREAM_THOUGHT_PARTITIONS_AHEAD = env_int(
    "STREAM_THOUGHT_PARTITIONS_AHEAD", 3, minimum=1
)

# Search (docs/search.md). On PostgreSQL a single word also matches its
# word forms in SEARCH_LANGUAGE (one of PostgreSQL's text search
# configurations; "simple" matches words as written, as SQLite does). Beat
# indexes what was written since its last pass every SEARCH_INDEX_INTERVAL_S.
SEARCH_LANGUAGE = env_choice(
    "SEARCH_LANGUAGE",
    "english",
    (
        "simple", "arabic", "armenian", "basque", "catalan", "danish", "dutch",
        "english", "finnish", "french", "german", "greek", "hindi", "hungarian",
        "indonesian", "irish", "italian", "lithuanian", "nepali", "norwegian",
        "portuguese", "romanian", "russian", "serbian", "spanish", "swedish",
        "tamil", "turkish", "yiddish",
    ),
)  # fmt: skip
SEARCH_INDEX_INTERVAL_S = env_int("SEARCH_INDEX_INTERVAL_S", 10, minimum=1)
