"""Project system checks (evalsite.E00x / W00x)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Warning


def check_secret_key(app_configs: Any, **kwargs: Any) -> list[Error]:
    if not settings.DEBUG and settings.SECRET_KEY == settings.DEV_SECRET_KEY:
        return [
            Error(
                "DEBUG is off but SECRET_KEY is the development placeholder.",
                hint="Set DJANGO_SECRET_KEY or DJANGO_SECRET_KEY_FILE.",
                id="evalsite.E001",
            )
        ]
    return []


def check_embedded_broker(app_configs: Any, **kwargs: Any) -> list[Warning]:
    if not settings.DEBUG and settings.CELERY_BROKER_IS_EMBEDDED:
        return [
            Warning(
                "DEBUG is off but Celery uses the embedded filesystem broker.",
                hint="Set CELERY_BROKER_URL=redis://... for a real deployment.",
                id="evalsite.W001",
            )
        ]
    return []
