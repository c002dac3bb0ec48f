from django.apps import AppConfig


class EvalsiteConfig(AppConfig):
    name = "evalsite"
    verbose_name = "evalsite operations"

    def ready(self) -> None:
        from evalsite import checks  # noqa: F401  (registers system checks)
