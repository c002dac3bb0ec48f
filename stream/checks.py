"""System checks of the cognitive stream (stream.E00x)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register


@register()
def check_dev_thought_injection(app_configs: Any, **kwargs: Any) -> list[Error]:
    if settings.ALLOW_DEV_THOUGHT_INJECTION and not settings.DEBUG:
        return [
            Error(
                "ALLOW_DEV_THOUGHT_INJECTION is on while DEBUG is off.",
                hint=(
                    "convertEligible injection through POST /thoughts is a dev-only "
                    "bypass (the agency contract §6.1); turn the flag off in "
                    "production."
                ),
                id="stream.E001",
            )
        ]
    return []
