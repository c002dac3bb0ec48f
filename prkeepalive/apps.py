from django.apps import AppConfig


class PrkeepaliveConfig(AppConfig):
    name = "prkeepalive"

    def ready(self) -> None:
        from evalsite.overview import Section, register

        register(
            Section(
                key="prkeepalive",
                order=30,
                context="prkeepalive.views.overview.overview_context",
                tiles="prkeepalive/overview_tile.html",
            )
        )
