from django.apps import AppConfig
from django.core.checks import Tags, register

from evalsite.checks import check_embedded_broker, check_secret_key


class EvalsiteConfig(AppConfig):
    name = "evalsite"
    verbose_name = "evalsite operations"

    def ready(self) -> None:
        register(check_secret_key, Tags.security, deploy=True)
        register(check_embedded_broker, deploy=True)
