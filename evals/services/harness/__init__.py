"""The scenario eval harness: suites replayed through the thinking pipeline.

A run replays a JSONL suite through the same thinking pipeline the live agent
uses and, in ``end_to_end`` mode, through the same stream and planning
services, on an isolated per-run agent. The run itself (queued, chunks as a
Celery chord, idempotent recording, progress, fail, finalize, resume) is
``evals.services.runs.lifecycle``'s; the harness is its executor of benchmarks
of kind ``suite``. Its modules: ``suites`` (discovery and reading), ``create``
(validate and record a run), ``execute`` (the case executor), ``artifacts``
(the EV-C4 scenario artifact) and ``finish`` (metrics, verdict,
summary.json).

What it writes: the suite's ``Benchmark`` (kind ``suite``) and a
``SuiteVersion`` per suite sha256, one ``Run``, one ``CaseResult`` per
scenario, and the result bundle (EV-C4) under ``EVALS_ARTIFACTS_DIR``.
What it logs: the contract's ``[Eval]`` and ``[Grounding]`` lines, verbatim.
"""
