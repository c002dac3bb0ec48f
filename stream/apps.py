from django.apps import AppConfig


class StreamConfig(AppConfig):
    name = "stream"

    def ready(self) -> None:
        from stream import checks  # noqa: F401  (registers system checks)
