"""Celery tasks of PR keepalive, one module per subject: ``deliveries``
(webhook deliveries, the reconciler) and ``rounds`` (orchestrator rounds).
Every task takes ids, calls one service and is safe to retry (the services
claim their rows with conditional updates).

Celery's autodiscovery imports ``prkeepalive.tasks``; importing the modules
here registers their tasks. Services never import them: they send by task name
(``evalsite.dispatch``), which imports this package on a process's first
send. Import a task from its module, never from here.
"""

from prkeepalive.tasks import deliveries, rounds

__all__ = ["deliveries", "rounds"]
