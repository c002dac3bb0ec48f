from django.apps import AppConfig


class EvalsConfig(AppConfig):
    name = "evals"

    def ready(self) -> None:
        # The scenario harness executes benchmarks of kind "suite"; resolved
        # on first use, so nothing of the harness is imported at start-up.
        from evals.services.runs.executors import executor_register

        executor_register("suite", "evals.services.harness.execute.SuiteExecutor")

        from evalsite.overview import Link, Section, register

        register(
            Section(
                key="evals",
                order=10,
                context="evals.views.overview.overview_context",
                tiles="evals/overview/tiles.html",
                body="evals/overview/body.html",
                links=(
                    Link("New run", "evals:run-new", primary=True),
                    Link("Compare", "evals:compare"),
                    Link("Trends", "evals:trends"),
                ),
            )
        )
