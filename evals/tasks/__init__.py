"""Celery tasks of the evals app, one module per subject: ``runs`` (the run
lifecycle's chunk and finalize tasks) and ``retention`` (old case results).

Celery's autodiscovery imports ``evals.tasks``; importing the modules here
registers their tasks. Services never import them: they send by task name
(``evalsite.dispatch``), which imports this package on a process's first
send. Import a task from its module, never from here.
"""

from evals.tasks import retention, runs

__all__ = ["retention", "runs"]
