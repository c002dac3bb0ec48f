"""Celery tasks of traces: retention and the score export.

Celery's autodiscovery imports this package; every task module is imported
here so its tasks are registered.
"""

from traces.tasks import export, retention

__all__ = ["export", "retention"]
