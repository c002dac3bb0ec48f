from django.apps import AppConfig


class StreamConfig(AppConfig):
    name = "stream"

    def ready(self) -> None:
        # Imported here, not at the top: these modules read models, which
        # Django's app registry loads only after every apps.py.
        from accounts.holders import holder_register
        from evalsite.overview import Section, register
        from stream import checks  # noqa: F401  (registers system checks)
        from stream.services.agents import agent_for_key
        from stream.views.overview import overview_context

        # An agent's key authenticates as the agent (request.auth), loaded
        # with the key in one query, whichever of its keys it is.
        holder_register(agent_for_key, select_related=("agent", "agent_key__agent"))

        register(
            Section(
                key="stream",
                order=20,
                context=overview_context,
                tiles="stream/overview_tile.html",
            )
        )
