"""Sending work to the Celery workers by task name: no service imports a
task module.

The layers run one way: a task (``<app>/tasks/``) takes ids and calls a
service; a service that schedules work names the task
(``enqueue("prkeepalive.start_round", round_pk)``) and this module finds it
in the Celery app's task registry, which the ``@shared_task`` decorators
fill. A task's name starts with its app's package (``stream.keepalive_tick``
is registered by ``stream.tasks``): a process that has not loaded that
package yet (the web process, a command) imports it on the first send, as
Celery's autodiscovery does in a worker.

Eager mode (``CELERY_TASK_ALWAYS_EAGER``, the tests) is Celery's own: the
task object is the one a direct import gives, so a send runs the task in the
caller exactly as ``task.delay`` did, and a test that replaces a task's
``delay`` sees the sends of the services.

Where the send happens stays with the service: after commit
(``transaction.on_commit``) or now, behind ``evalsite.services.broker_send``
when a broker that is down must answer 503.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module
from typing import Any

from celery import Task, chord
from celery.canvas import Signature
from celery.result import AsyncResult

from evalsite.celery import app


def task_get(name: str) -> Task:
    """The registered task called ``name``, its app's tasks imported first
    when needed; ``LookupError`` naming it when there is none."""
    found = app.tasks.get(name)
    if found is None:
        package = f"{name.partition('.')[0]}.tasks"
        try:
            import_module(package)
        except ModuleNotFoundError as exc:
            # No such app or no tasks in it; a tasks module that fails on a
            # missing dependency of its own still raises as it is.
            if exc.name is None or not package.startswith(exc.name):
                raise
        found = app.tasks.get(name)
    if found is None:
        raise LookupError(f"no Celery task is named {name!r}")
    return found


def enqueue(name: str, *args: Any) -> AsyncResult:
    """Send ``name(*args)`` to a worker now (``Task.delay``)."""
    return task_get(name).delay(*args)


def signature(
    name: str, *args: Any, immutable: bool = True, **options: Any
) -> Signature:
    """The signature of ``name(*args)`` for a chord, with ``options``
    (``queue``, ``ignore_result``) set. Immutable unless asked: a mutable
    one (a chord's callback) gets the members' results as its first
    argument."""
    task = task_get(name)
    made = task.si(*args) if immutable else task.s(*args)
    return made.set(**options)


def chord_send(header: Sequence[Signature], body: Signature) -> AsyncResult:
    """Send the ``header`` signatures as a group joined by ``body``."""
    return chord(list(header))(body)
