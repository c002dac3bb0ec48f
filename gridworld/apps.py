from django.apps import AppConfig


class GridworldConfig(AppConfig):
    name = "gridworld"
