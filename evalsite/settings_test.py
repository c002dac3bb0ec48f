"""Test settings: the real settings plus what tests need."""

import os

os.environ.setdefault("DJANGO_DEBUG", "true")
# Tests never read a checkout's local .env (make demo's flags would leak in).
os.environ["EVALSITE_ENV_FILE"] = ""

from evalsite.settings import *  # noqa: E402, F403
from evalsite.settings import VAR_DIR  # noqa: E402

# A fresh clone has no var/ yet; the SQLite test database lives there.
VAR_DIR.mkdir(parents=True, exist_ok=True)

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
SECURE_SSL_REDIRECT = False
# Tests hammer the API with one key; tests/evalsite/test_throttling.py
# sets its own rate.
API_KEY_THROTTLE_RATE = "1000000/minute"
TEST_ARTIFACTS_DIR = VAR_DIR / "test-artifacts"

# A file, not :memory:, so worker processes started by integration tests see
# the same test database.
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-evalsite.sqlite3")}  # noqa: F405
