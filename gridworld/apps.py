from django.apps import AppConfig

# The collector pause notes how many objects the interpreter holds frozen of
# its own, before a worker freezes its heap (a tiny pure module).
import gridworld.core.collector  # noqa: F401


class GridworldConfig(AppConfig):
    name = "gridworld"

    def ready(self) -> None:
        # Episode batches are runs of benchmark kind "gridworld": the run
        # lifecycle calls gridworld's executor, registered through the facade.
        from evals import facade
        from gridworld.services.batches import KIND, EpisodeExecutor

        facade.register_run_kind(KIND, EpisodeExecutor())
        from evalsite.overview import Link, Section, register

        register(
            Section(
                key="gridworld",
                order=40,
                links=(Link("Gridworld batches", "gridworld:index"),),
            )
        )
