from django.apps import AppConfig


class PrkeepaliveConfig(AppConfig):
    name = "prkeepalive"

    def ready(self) -> None:
        # Imported here, not at the top: the overview's reads use models,
        # which Django's app registry loads only after every apps.py.
        from evalsite.overview import Section, register
        from prkeepalive.views.overview import overview_context

        register(
            Section(
                key="prkeepalive",
                order=30,
                context=overview_context,
                tiles="prkeepalive/overview_tile.html",
            )
        )
