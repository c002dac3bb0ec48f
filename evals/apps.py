from django.apps import AppConfig

from evalsite.overview import Link, Section, register


class EvalsConfig(AppConfig):
    name = "evals"

    def ready(self) -> None:
        # Imported here, not above: the executors' module reads evals' models,
        # which Django's app registry loads only after every apps.py. The
        # scenario harness executes benchmarks of kind "suite"; resolved on
        # first use, so nothing of the harness is imported at start-up.
        from evals.services.runs.executors import executor_register
        from evals.views.overview import overview_context

        executor_register("suite", "evals.services.harness.execute.SuiteExecutor")

        register(
            Section(
                key="evals",
                order=10,
                context=overview_context,
                tiles="evals/overview/tiles.html",
                body="evals/overview/body.html",
                links=(
                    Link("New run", "evals:run-new", primary=True),
                    Link("Compare", "evals:compare"),
                    Link("Trends", "evals:trends"),
                ),
            )
        )
