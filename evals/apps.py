from django.apps import AppConfig


class EvalsConfig(AppConfig):
    name = "evals"

    def ready(self) -> None:
        # The scenario harness executes benchmarks of kind "suite"; resolved
        # on first use, so nothing of the harness is imported at start-up.
        from evals.services.runs.executors import executor_register

        executor_register("suite", "evals.services.harness.execute.SuiteExecutor")
