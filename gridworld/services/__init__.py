"""Use cases of the gridworld: episode batches on the run lifecycle, episodes,
receipts and their verification.

Modules: ``batches`` (create a batch as a run of benchmark kind
``gridworld``; the ``EpisodeExecutor`` the lifecycle calls for its chunks),
``episodes`` (reading stored receipts, verifying uploaded ones). What the
pages and the API list is in ``gridworld.selectors``.
"""
