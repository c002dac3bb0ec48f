"""The hazard gridworld: its governor, receipts and replay; episode batches
run as eval runs.

Rooms as in every app (``core/``, ``models.py``, ``selectors.py``,
``services/``, ``api/``, ``views/``, ``urls/``, ``charts.py``, ``admin.py``,
``management/commands/``). There is no ``tasks/`` package: gridworld has no
Celery task of its own. A batch's episodes are the cases of a run, played by
the run lifecycle's chunk tasks (``evals.run_chunk``), which call the
``EpisodeExecutor`` registered through ``evals.facade`` in ``gridworld.apps``.
"""
