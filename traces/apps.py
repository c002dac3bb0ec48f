from django.apps import AppConfig


class TracesConfig(AppConfig):
    """Model calls and agent spans: tokens, cost, latency, OTLP in and out.

    Imports no other app's models: a span points at a thought, a run or a
    scenario result by its id, so thoughts can be pruned and runs deleted
    without touching the spans table.
    """

    name = "traces"
    default_auto_field = "django.db.models.BigAutoField"
