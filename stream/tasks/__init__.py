"""Celery tasks of the stream app, one module per subject: ``keepalive``,
``cognitive_stream`` (upkeep) and ``planning``.

Celery's autodiscovery imports ``stream.tasks``; importing the modules here
registers their tasks. Services never import them: they send by task name
(``evalsite.dispatch``), which imports this package on a process's first
send. Import a task from its module, never from here.
"""

from stream.tasks import cognitive_stream, keepalive, planning

__all__ = ["cognitive_stream", "keepalive", "planning"]
