from django.apps import AppConfig


class StreamConfig(AppConfig):
    name = "stream"

    def ready(self) -> None:
        from accounts.holders import holder_register
        from evalsite.overview import Section, register
        from stream import checks  # noqa: F401  (registers system checks)
        from stream.services.agents import agent_for_key

        # An agent's key authenticates as the agent (request.auth), loaded
        # with the key in one query.
        holder_register(agent_for_key, select_related=("agent",))

        register(
            Section(
                key="stream",
                order=20,
                context="stream.views.overview.overview_context",
                tiles="stream/overview_tile.html",
            )
        )
