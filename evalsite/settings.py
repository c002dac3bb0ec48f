"""The one settings module of evalsite: everything comes from the environment.

Read top to bottom. The readers (``evalsite/env.py``) parse variables
strictly: a malformed value stops start-up with ``ImproperlyConfigured``
naming the variable, rather than silently falling back to a default.
"""

from __future__ import annotations

from django.utils.csp import CSP

from evalsite.cachesafe import cache_settings
from evalsite.celery import (
    DEFAULT_QUEUE,
    beat_schedule,
    broker_transport_options,
    task_queues,
    task_routes,
)
from evalsite.database import database_timeouts, default_database
from evalsite.env import (
    BASE_DIR,
    env_bool,
    env_choice,
    env_header,
    env_hosts,
    env_int,
    env_log_level,
    env_origins,
    env_path,
    env_rate,
    env_redis_url,
    env_secret_key,
    env_secret_url,
    env_var_dir,
    load_local_env,
    refuse,
)
from evalsite.logging import build_logging
from evalsite.openapi import spectacular_settings
from evalsite.siteurl import env_site_url

load_local_env()

# --- Core --------------------------------------------------------------------

DEBUG = env_bool("DJANGO_DEBUG", False)
VAR_DIR = env_var_dir()

DEV_SECRET_KEY = "dev-only-insecure-key-never-use-in-production"  # noqa: S105
SECRET_KEY = env_secret_key(debug=DEBUG, placeholder=DEV_SECRET_KEY)

ALLOWED_HOSTS = env_hosts("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_origins("DJANGO_CSRF_TRUSTED_ORIGINS")
# Where the pages are served, for the links commands print (eval_run,
# gridworld_run); `make demo PORT=N` writes it to .env.
SITE_URL = env_site_url("SITE_URL")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "evalsite",
    "accounts",
    "stream",
    "evals",
    "gridworld",
    "prkeepalive",
    "traces",
    "reviews",
    "search",
]

MIDDLEWARE = [
    "evalsite.middleware.BodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "evalsite.middleware.DatabaseUnavailableMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "evalsite.middleware.DatabaseDeadlineMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.audit.AuditOriginMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "evalsite.middleware.AddressGuardMiddleware",
]

ROOT_URLCONF = "evalsite.urls"
WSGI_APPLICATION = "evalsite.wsgi.application"
ASGI_APPLICATION = "evalsite.asgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "evalsite.context_processors.navigation",
            ],
        },
    },
]

# --- Database: SQLite under var/ unless DATABASE_URL is set ------------------

# DATABASE_URL (a secret: URLs carry passwords), DB_CONN_MAX_AGE and
# DB_PREPARED_STATEMENTS are read in evalsite/database.py.
DATABASES = {"default": default_database(VAR_DIR)}
# PostgreSQL: a connection (and the check of a kept one) gives up after
# DB_CONNECT_TIMEOUT_S, a statement after DB_STATEMENT_TIMEOUT_S; a server
# that stops answering is cut off (evalsite/dbdeadline.py) and the request
# answers 503.
DB_CONNECT_TIMEOUT_S, DB_STATEMENT_TIMEOUT_S = database_timeouts()

# --- Auth --------------------------------------------------------------------

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
# Failed sign-ins per account and per client address before sign-in is
# refused for LOGIN_LOCKOUT_S (evalsite/login.py; `manage.py login_unlock`).
LOGIN_MAX_FAILURES = env_int("LOGIN_MAX_FAILURES", 5, minimum=1)
LOGIN_MAX_FAILURES_PER_ADDRESS = env_int(
    "LOGIN_MAX_FAILURES_PER_ADDRESS", 50, minimum=1
)
LOGIN_LOCKOUT_S = env_int("LOGIN_LOCKOUT_S", 900, minimum=1)
LOGIN_CLIENT_ADDRESS_HEADER = env_header("LOGIN_CLIENT_ADDRESS_HEADER")
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# --- Internationalisation, static files --------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env_path("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
# In development static files come from the finders, refreshed on each request.
WHITENOISE_AUTOREFRESH = DEBUG
WHITENOISE_USE_FINDERS = DEBUG
# Cached for a year ("immutable"): names that change with their content, the
# manifest's hashed copies (name.<12 hex>.ext) and vendored files, whose
# version is in the name. Everything else (base.css in development) is
# revalidated.
WHITENOISE_IMMUTABLE_FILE_TEST = (
    r"^.+\.[0-9a-f]{12}\.[A-Za-z0-9]+$|/vendor/[^/]+-[0-9]+\.[0-9]+\.[0-9]+[^/]*$"
)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- Security (production values when DEBUG is off) --------------------------

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_HSTS_SECONDS = env_int(
    "DJANGO_HSTS_SECONDS", 0 if DEBUG else 31536000, minimum=0
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
# Preload asks browsers to ship the domain as HTTPS-only (hstspreload.org);
# on by default in production so `check --deploy` is clean. Turn it off for a
# domain that must keep a plain-HTTP subdomain: leaving the list takes months.
SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# No inline scripts anywhere; plotly.js injects <style> elements at run time,
# so styles allow 'unsafe-inline'.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
}

# Bounded request bodies: the API answers 413 past this, never a 500.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int(
    "API_MAX_BODY_BYTES", 10 * 1024 * 1024, minimum=1024
)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
API_MAX_JSON_DEPTH = env_int("API_MAX_JSON_DEPTH", 32, minimum=4)
# Every request body, pages and uploads included: a longer declared
# Content-Length gets 413 before anything reads it (evalsite/middleware.py).
REQUEST_MAX_BODY_BYTES = env_int(
    "REQUEST_MAX_BODY_BYTES",
    DATA_UPLOAD_MAX_MEMORY_SIZE + 1024 * 1024,
    minimum=DATA_UPLOAD_MAX_MEMORY_SIZE,
)
# Forms past these get 400 (the API's JSON error body under /api/).
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000
DATA_UPLOAD_MAX_NUMBER_FILES = 100

# --- REST API ----------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.auth.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # Per API key; sessions (people) are not throttled.
    "DEFAULT_THROTTLE_CLASSES": ["accounts.auth.ApiKeyRateThrottle"],
    "DEFAULT_PARSER_CLASSES": [
        "evalsite.parsers.BoundedJSONParser",
        "rest_framework.parsers.MultiPartParser",
        "rest_framework.parsers.FormParser",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "evalsite.api.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
if DEBUG:
    REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"].append(
        "rest_framework.renderers.BrowsableAPIRenderer"
    )

# Requests per API key: "<n>/<second|minute|hour|day>"; over it, 429 with
# Retry-After. Counted in CACHE_URL's cache (per process without one).
API_KEY_THROTTLE_RATE = env_rate("API_KEY_THROTTLE_RATE", "1200/minute")
# A cache that cannot be reached fails open (evalsite/cachesafe.py); each
# call gives up after CACHE_TIMEOUT_S.
CACHE_URL = env_redis_url("CACHE_URL")
CACHES = {
    "default": cache_settings(
        CACHE_URL, timeout_s=env_int("CACHE_TIMEOUT_S", 1, minimum=1)
    )
}

SPECTACULAR_SETTINGS = spectacular_settings()

# --- Celery: embedded filesystem broker unless CELERY_BROKER_URL is set ------

CELERY_BROKER_URL = (
    env_secret_url(
        "CELERY_BROKER_URL", ("redis", "rediss", "filesystem"), "redis://host:6379/0"
    )
    or "filesystem://"
)
CELERY_BROKER_IS_EMBEDDED = CELERY_BROKER_URL.startswith("filesystem://")
CELERY_BROKER_DIR = VAR_DIR / "celery"
# A chunk of work runs at most CELERY_TASK_TIME_LIMIT seconds (then the pool
# kills it), so a message nobody acknowledged for longer than that plus a
# margin belongs to a dead worker and is delivered again.
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 300, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 360, minimum=1)
refuse(
    "CELERY_TASK_SOFT_TIME_LIMIT must be less than CELERY_TASK_TIME_LIMIT, got "
    f"{CELERY_TASK_SOFT_TIME_LIMIT} and {CELERY_TASK_TIME_LIMIT}"
    if CELERY_TASK_SOFT_TIME_LIMIT >= CELERY_TASK_TIME_LIMIT
    else None
)
CELERY_VISIBILITY_TIMEOUT_S = env_int(
    "CELERY_VISIBILITY_TIMEOUT_S",
    CELERY_TASK_TIME_LIMIT + 60,
    minimum=CELERY_TASK_TIME_LIMIT + 1,
)
# Publishing fails fast when the broker is down: the API answers 503 in about
# a second instead of hanging (kombu retries forever by default).
CELERY_BROKER_CONNECT_TIMEOUT_S = env_int(
    "CELERY_BROKER_CONNECT_TIMEOUT_S", 2, minimum=1
)
# The embedded broker keeps a message on disk until it is acknowledged
# (evalsite/transport.py); on Redis an unacknowledged one comes back after the
# visibility timeout. Folders and intervals: evalsite/celery.py.
CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(
    embedded=CELERY_BROKER_IS_EMBEDDED,
    broker_dir=CELERY_BROKER_DIR,
    visibility_timeout_s=CELERY_VISIBILITY_TIMEOUT_S,
    connect_timeout_s=CELERY_BROKER_CONNECT_TIMEOUT_S,
)
if CELERY_BROKER_IS_EMBEDDED:
    CELERY_BROKER_TRANSPORT = "evalsite.transport:Transport"
    # An idle worker lists the queue folder this often (kombu's default is
    # once a second, which a person starting a run waits out).
    CELERY_BROKER_TRANSPORT_OPTIONS["polling_interval"] = (
        env_int("CELERY_BROKER_POLL_MS", 100, minimum=10) / 1000
    )
else:
    # The Redis result backend (chords) retries 20 times a second apart by
    # default: a dead Redis held a run's start 19 s. One quick retry, as for
    # publishing, then the API answers 503.
    CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
        "visibility_timeout": CELERY_VISIBILITY_TIMEOUT_S,
        "retry_policy": {
            "max_retries": 1,
            "interval_start": 0,
            "interval_step": 0.5,
            "interval_max": 0.5,
        },
    }
    CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = CELERY_BROKER_CONNECT_TIMEOUT_S
    CELERY_REDIS_SOCKET_TIMEOUT = 10
CELERY_BROKER_CONNECTION_TIMEOUT = CELERY_BROKER_CONNECT_TIMEOUT_S
CELERY_TASK_PUBLISH_RETRY = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 0.5,
}
# Domain results live in our models; a result backend exists only for chords.
CELERY_RESULT_BACKEND = env_secret_url(
    "CELERY_RESULT_BACKEND", ("redis", "rediss", "file"), "redis://host:6379/0"
) or (
    f"file://{CELERY_BROKER_DIR / 'results'}"
    if CELERY_BROKER_IS_EMBEDDED
    else CELERY_BROKER_URL
)
CELERY_TASK_IGNORE_RESULT = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
# At-least-once delivery: a task is acknowledged after it ran, a task whose
# worker process died is delivered again, and a worker holds one message
# per process, so a dead worker strands at most that many.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# One queue per kind of work (runs, gridworld, keepalive, maintenance), each
# task routed by name (evalsite/celery.py); a worker without -Q takes all.
CELERY_TASK_QUEUES = task_queues()
CELERY_TASK_ROUTES = task_routes()
CELERY_TASK_DEFAULT_QUEUE = DEFAULT_QUEUE
# A chord without native join support (the embedded result backend) is
# joined by celery.chord_unlock polling every second; Celery lets it poll
# forever. Bounded here: past EVALS_CHORD_MAX_WAIT_S the stale-run sweeper
# owns the run. The chunk that records a run's last case finalizes the run
# itself (evals.tasks.runs), so the poll is only the safety net.
CELERY_RESULT_CHORD_RETRY_INTERVAL = 1
EVALS_CHORD_MAX_WAIT_S = env_int("EVALS_CHORD_MAX_WAIT_S", 6 * 3600, minimum=10)
CELERY_TASK_ANNOTATIONS = {
    "celery.chord_unlock": {
        "max_retries": EVALS_CHORD_MAX_WAIT_S // CELERY_RESULT_CHORD_RETRY_INTERVAL
    }
}
# A worker waits this long for its database at start, then exits non-zero
# rather than report ready with nothing to write to.
WORKER_DATABASE_WAIT_S = env_int("WORKER_DATABASE_WAIT_S", 30, minimum=0)
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# --- The apps' own settings (evalsite/settings_apps.py) ----------------------

from evalsite.settings_apps import *  # noqa: E402, F403
from evalsite.settings_apps import (  # noqa: E402
    AGENCY_LOG_INTERVAL_S,
    KEEPALIVE_TICK_S,
    PLANNING_POLL_S,
    PRKEEPALIVE_RECONCILE_S,
    SEARCH_INDEX_INTERVAL_S,
)

# The stale-run sweeper: a run with no progress for EVALS_STALE_RUN_S gets
# its missing cases sent again, up to EVALS_STALE_RUN_MAX_RESUMES times, then
# fails. Longer than any wait in the queue, so busy workers are not "stale".
EVALS_STALE_RUN_S = env_int(
    "EVALS_STALE_RUN_S",
    max(1800, 2 * CELERY_VISIBILITY_TIMEOUT_S),
    minimum=CELERY_VISIBILITY_TIMEOUT_S,
)
EVALS_STALE_RUN_MAX_RESUMES = env_int("EVALS_STALE_RUN_MAX_RESUMES", 3, minimum=0)
EVALS_STALE_RUN_BATCH = 50
EVALS_SWEEP_INTERVAL_S = env_int("EVALS_SWEEP_INTERVAL_S", 60, minimum=1)

# The beat schedule, in one place (the tasks: evalsite/celery.py).
CELERY_BEAT_SCHEDULE = beat_schedule(
    heartbeat_s=env_int("HEARTBEAT_INTERVAL_S", 30, minimum=1),
    keepalive_tick_s=KEEPALIVE_TICK_S,
    agency_log_s=AGENCY_LOG_INTERVAL_S,
    evals_sweep_s=EVALS_SWEEP_INTERVAL_S,
    planning_poll_s=PLANNING_POLL_S,
    prkeepalive_reconcile_s=PRKEEPALIVE_RECONCILE_S,
    search_index_s=SEARCH_INDEX_INTERVAL_S,
)

# --- Logging -----------------------------------------------------------------

LOG_LEVEL = env_log_level("LOG_LEVEL", "INFO")
LOG_FORMAT = env_choice("LOG_FORMAT", "text", ("text", "json"))
LOG_REPEAT_WINDOW_S = env_int("LOG_REPEAT_WINDOW_S", 60, minimum=0)
LOGGING = build_logging(
    level=LOG_LEVEL, fmt=LOG_FORMAT, repeat_window_s=LOG_REPEAT_WINDOW_S
)
LOGGING_CONFIG = "evalsite.logging.configure"

# --- Demo --------------------------------------------------------------------

# Each capability registers a function that loads its demo data (idempotent).
DEMO_DATA_LOADERS: list[str] = [
    "stream.demo.load_demo",
    "evals.demo.load_demo",
    "evals.demo_benchmarks.load_demo",
    "prkeepalive.demo.load_demo",
    "gridworld.demo.load_demo",
    "reviews.demo.load_demo",
    "search.demo.load_demo",
]
