from django.apps import AppConfig


class PrkeepaliveConfig(AppConfig):
    name = "prkeepalive"
