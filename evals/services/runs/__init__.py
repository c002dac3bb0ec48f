"""The run lifecycle of every executable benchmark: create, fan out, record,
progress, fail, finalize, resume.

A run of a benchmark is one ``Run`` row and one ``CaseResult`` per case. This
package owns everything about that row that does not depend on what a case
is: creating it ``queued``, sending its chunks as a Celery chord
(``evals.run_chunk`` per chunk of case ids, joined by ``evals.finalize_run``),
moving it ``queued -> running`` once, recording case results idempotently and
bumping ``progress_done``, failing it, and finalizing it (status, counts,
metrics, verdict, the eval-store contract's run summary in ``Run.summary``). What a
case is,
how it runs and what its metrics are belongs to a *case executor*, one per
benchmark kind (``Benchmark.kind``).

Users: the scenario harness (``evals.services.harness``, kind ``suite``,
registered in ``evals.apps``) and gridworld episode batches (kind
``gridworld``).

Modules: ``executors`` (the ``CaseExecutor`` protocol, ``BaseCaseExecutor``,
``CaseRecord``, ``RunVerdict``, ``RunBroken``, ``executor_register``),
``recording`` (``CaseRecorder``: idempotent, batched recording and
progress) and ``lifecycle`` (``run_create``, ``run_enqueue``,
``run_resume``, ``run_chunk_execute``, ``run_execute``, ``run_fail``,
``run_finalize``, ``run_summary``, ``ACTIVE_STATUSES``). The Celery tasks,
thin, are ``evals.tasks.runs.run_chunk`` (name ``evals.run_chunk``, args
``run_pk, case_ids``) and ``evals.tasks.runs.finalize_run`` (name
``evals.finalize_run``, arg ``run_pk``).

How a second user plugs in
--------------------------
Another app does it through ``evals.facade`` (``register_run_kind``,
``run_create``, ``run_execute``: typed dataclasses, no model rows); the
steps below are what the facade does for it, and how evals' own ``suite``
kind plugs in.

1. Write an executor: subclass ``BaseCaseExecutor`` (or satisfy
   ``CaseExecutor``) in your app's services, importing ``BaseCaseExecutor``,
   ``CaseRecord``, ``RunVerdict`` and ``RunBroken`` from
   ``evals.services.runs.executors``::

       class EpisodeExecutor(BaseCaseExecutor):
           def case_ids(self, run):           # every case id, in run order
               return [f"episode-{i}" for i in range(run.total_cases)]

           def prepare(self, run):            # optional: shared context per chunk;
               return load_config(run)        # raise RunBroken to fail the run

           def execute(self, run, context, case_ids, recorder):
               for case_id in case_ids:       # only ids not recorded yet
                   result = play(context, case_id)
                   recorder.add(CaseRecord(case_id=case_id, passed=result.safe,
                                           latency_ms=result.ms,
                                           details=result.receipt_summary,
                                           metric_inputs={"steps": result.steps}))

           def verdict(self, run, cases, *, missing, failed):
               metrics = my_metrics([c.details["metricInputs"] for c in cases])
               return RunVerdict(metrics=metrics, passed=not missing and not failed,
                                 failed_properties=(), errored_cases=0, cases=cases)

2. Register it for your benchmark kind from your ``AppConfig.ready()``,
   by dotted path (resolved on first use, so no import cycle at start-up)::

       from evals.services.runs.executors import executor_register
       executor_register("suite", "evals.services.harness.execute.SuiteExecutor")

3. Create runs with ``evals.services.runs.lifecycle.run_create(
   benchmark=..., run_id=..., started_at=..., total_cases=..., config=...,
   case_ids=...)`` inside your own transaction (upsert your
   ``Benchmark`` first); with ``schedule=True`` the chord is sent after
   commit. ``run_execute(run=...)`` does the same work in-process (CLI
   ``--wait``, demo, bench). A run whose worker went away is picked up again
   with ``run_resume(run_pk=...)``.

Guarantees to an executor
-------------------------
- ``execute`` is only called for a run that is ``queued`` or ``running``,
  after ``prepare`` succeeded, with the ids of the chunk that have no
  ``CaseResult`` yet, in the order the chunk gave them.
- ``recorder.add`` buffers results and commits them in batches of
  ``RECORD_BATCH`` (or every ``RECORD_INTERVAL_S``; in ``run_execute``,
  every ``RECORD_INTERVAL_S`` with ``IN_PROCESS_RECORD_BATCH`` cases at
  most), one transaction per batch; ``recorder.record_now`` stores at once
  inside the caller's transaction, for an executor whose case must commit
  together with its own writes (the harness's end_to_end mode). A case id
  recorded already (a redelivered or parallel chunk got there first) is
  skipped and never counted twice (unique ``run, case_id``).
- ``verdict`` gets every stored ``CaseResult`` of the run, ``missing`` (cases
  that never ran) and ``failed`` (the run was failed); it returns the cases
  in report order. The lifecycle decides the status: ``failed`` if the run
  was failed, ``partial`` if cases are missing or errored, else
  ``completed``. ``finished`` runs once, after the run is closed (write
  artifacts, log the kind's summary lines).
- An exception escaping ``execute`` is retried by the chunk task twice, then
  the run is failed (``[Eval] run_failed run_id=<ID> reason=chunk_failed``)
  and finalized with what it has.
"""
