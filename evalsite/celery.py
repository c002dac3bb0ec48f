"""The Celery app: configured from Django settings, logging through LOGGING."""

from __future__ import annotations

import logging.config
import os
from typing import Any

from celery import Celery
from celery.signals import setup_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

app = Celery("evalsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def configure_logging(**kwargs: Any) -> None:
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


@app.on_after_configure.connect
def ensure_broker_folders(sender: Celery, **kwargs: Any) -> None:
    """The embedded filesystem broker needs its folders before the first send."""
    options = sender.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "control_folder"):
        if options.get(key):
            os.makedirs(options[key], exist_ok=True)
    backend = sender.conf.result_backend or ""
    if backend.startswith("file://"):
        os.makedirs(backend.removeprefix("file://"), exist_ok=True)
