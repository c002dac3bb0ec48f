"""Celery tasks of the stream app, one module per subject: ``keepalive``,
``cognitive_stream`` (upkeep), ``planning`` and ``retention`` (old rows
and the thoughts table's partitions).

Celery's autodiscovery imports ``stream.tasks``; importing the modules here
registers their tasks. Services never import them: they send by task name
(``evalsite.dispatch``), which imports this package on a process's first
send. Import a task from its module, never from here.
"""

from stream.tasks import cognitive_stream, keepalive, planning, retention

__all__ = ["cognitive_stream", "keepalive", "planning", "retention"]
