from django.apps import AppConfig


class GridworldConfig(AppConfig):
    name = "gridworld"

    def ready(self) -> None:
        # Episode batches are runs of benchmark kind "gridworld"; the executor
        # is resolved on first use, so nothing of it is imported at start-up.
        from evals.services.runs.executors import executor_register

        executor_register("gridworld", "gridworld.services.batches.EpisodeExecutor")
        # The collector pause notes how many objects the interpreter holds
        # frozen of its own, before a worker freezes its heap (tiny module).
        import gridworld.core.collector  # noqa: F401
        from evalsite.overview import Link, Section, register

        register(
            Section(
                key="gridworld",
                order=40,
                links=(Link("Gridworld batches", "gridworld:index"),),
            )
        )
