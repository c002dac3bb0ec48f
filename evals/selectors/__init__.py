"""Reads of the evals app, one module per subject: ``runs``, ``benchmarks``,
``baselines`` (snapshots and shadow records) and ``trends``.

Every function here reads and never writes; the number of queries does not
grow with the number of cases (each function says how many it makes). Import
from the module, never from here.
"""
