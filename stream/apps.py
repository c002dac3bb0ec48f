from django.apps import AppConfig


class StreamConfig(AppConfig):
    name = "stream"

    def ready(self) -> None:
        from evalsite.overview import Section, register
        from stream import checks  # noqa: F401  (registers system checks)

        register(
            Section(
                key="stream",
                order=20,
                context="stream.views.overview.overview_context",
                tiles="stream/overview_tile.html",
            )
        )
